"""``hpx validate`` refuses what it cannot run before anything is fetched or built: bad data
named by its file, no data set, a silicon board, an engine without a host reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hpx_core.cli import main

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
ARGS = [str(KWS), "--engine", "tflm", "--board", "qemu-m55"]


def _refused(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["validate", *args, "--work-dir", str(tmp_path / "work"),
                 "--output-dir", str(tmp_path / "out")])
    said = capsys.readouterr().err
    assert code != 0 and "Traceback" not in said
    assert not (tmp_path / "work").exists() and not (tmp_path / "out").exists()
    return said


def test_a_wrong_shape_is_named_with_its_file_before_any_build(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "wrong.npy"
    np.save(data, np.zeros((4, 10, 49, 1), np.float32))
    said = _refused([*ARGS, "--data", str(data)], tmp_path, capsys)
    assert f"{data}: shape [4, 10, 49, 1], input input_1 takes [1, 49, 10, 1]" in said


def test_labels_of_another_length_are_named(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, labels = tmp_path / "x.npy", tmp_path / "labels.txt"
    np.save(data, np.zeros((3, 49, 10, 1), np.float32))
    labels.write_text("1\n2\n")
    said = _refused([*ARGS, "--data", str(data), "--labels", str(labels)], tmp_path, capsys)
    assert f"{labels} holds 2 labels for 3 samples" in said


def test_without_a_data_set_it_says_how_to_give_one(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    said = _refused(ARGS, tmp_path, capsys)
    assert "no data set to validate with" in said and "--data" in said


def test_a_silicon_board_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "x.npy"
    np.save(data, np.zeros((1, 49, 10, 1), np.float32))
    said = _refused([str(KWS), "--engine", "tflm", "--board", "apollo510_evb", "--data",
                     str(data)], tmp_path, capsys)
    assert "emulated boards" in said and "apollo510_evb is silicon" in said

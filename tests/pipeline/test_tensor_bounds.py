"""A tiny model cannot exhaust the host: a tensor larger than the board's largest data memory
is refused by `hpx config validate` and by `hpx profile` before any input is made for it;
negative dimensions are refused as damage."""

from __future__ import annotations

from pathlib import Path

import pytest
from ptebuild import build_program, sample_spec
from tflitebuild import build_relu

from hpx_core import pipeline
from hpx_core.errors import ConfigError, ModelError

HUGE = [4, 2**30 + 4]  # int8: 4 GiB and 16 bytes


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _config(tmp_path: Path, model: Path, engine: str = "tflm") -> Path:
    config = tmp_path / "hpx.yaml"
    config.write_text(f"model: {{path: {model.name}}}\nengine: {{type: {engine}}}\n"
                      "target: {board: qemu-m55}\n")
    return config


def test_validate_refuses_a_tensor_larger_than_the_boards_memory(tmp_path: Path) -> None:
    model = tmp_path / "relu.tflite"
    model.write_bytes(build_relu(HUGE))
    assert len(model.read_bytes()) < 400
    with pytest.raises(ConfigError, match=r"input .* takes 4,294,967,312 bytes, more than "
                                          "qemu-m55's largest data memory") as caught:
        pipeline.check(_config(tmp_path, model))
    assert "cannot run on this board" in caught.value.hint


def test_profile_refuses_it_before_any_input_is_made(tmp_path: Path, cache: Path) -> None:
    model = tmp_path / "relu.tflite"
    model.write_bytes(build_relu(HUGE))
    overrides = {"engine.type": ("tflm", "test"), "target.board": ("qemu-m55", "test"),
                 "output.dir": (str(tmp_path / "out"), "test")}
    with pytest.raises(ConfigError, match="more than qemu-m55's largest data memory"):
        pipeline.profile(model, None, overrides)
    assert not (cache / "random-inputs").exists() and not (tmp_path / "out").exists()


def test_a_model_that_fits_passes_the_same_check(tmp_path: Path) -> None:
    model = tmp_path / "relu.tflite"
    model.write_bytes(build_relu([1, 1024]))
    assert pipeline.check(_config(tmp_path, model)).model is not None


def test_a_negative_dimension_is_damage(tmp_path: Path) -> None:
    model = tmp_path / "relu.tflite"
    model.write_bytes(build_relu([1, -5]))
    with pytest.raises(ModelError, match=r"tensor 0 has a negative dimension \(shape \[1, -5\]\)"):
        pipeline.check(_config(tmp_path, model))


def test_validate_refuses_a_program_tensor_of_16_gib(tmp_path: Path) -> None:
    spec = sample_spec()
    values = list(spec.values)
    values[0] = type(values[0])(6, [4, 1024, 1024, 1024], planned=False)  # type: ignore[call-arg]
    spec.values = values
    model = tmp_path / "huge.pte"
    model.write_bytes(build_program(spec))
    with pytest.raises(ConfigError, match="takes 17,179,869,184 bytes"):
        pipeline.check(_config(tmp_path, model, "executorch"))

"""Files a user names are read only when they are regular files, and never past their limit;
JSON read back holds standard, finite numbers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hpx_core.errors import ModelError, UsageError
from hpx_core.reading import load_model, model_format
from hpx_core.user_files import read_regular, strict_json


def _read(path: Path, limit: int = 1024) -> bytes:
    return read_regular(path, limit=limit, what="calibration", hint="give a file")


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"{}")
    assert _read(tmp_path / "a.json") == b"{}"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(UsageError, match="is a FIFO, not a file"):
        _read(fifo)


def test_a_link_to_a_device_is_refused_before_reading(tmp_path: Path) -> None:
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")  # reading it never ends
    with pytest.raises(UsageError, match="is a device, not a file"):
        _read(link)


def test_a_folder_and_a_missing_file_are_named(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a folder"):
        _read(tmp_path)
    with pytest.raises(UsageError, match="No such file"):
        _read(tmp_path / "absent.json")


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_bytes(b" " * 2048)
    with pytest.raises(UsageError, match="over 1 KiB"):
        _read(tmp_path / "big.json")


@pytest.mark.parametrize(("text", "words"), [
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": Infinity}', "Infinity is not a JSON number"),
    ('{"a": -Infinity}', "-Infinity is not a JSON number"),
    ('{"a": 1e400}', "too large"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a": 1' + "0" * 400 + "}", "a number of 401 digits is out of range"),
])
def test_json_numbers_must_be_standard_and_finite(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        strict_json(text.encode())


def test_ordinary_json_is_unchanged() -> None:
    assert strict_json(b'{"a": [1, 2.5, -3e2, null, true]}') == {"a": [1, 2.5, -300.0, None,
                                                                       True]}


def test_a_model_path_to_a_fifo_or_a_device_is_a_model_error(tmp_path: Path) -> None:
    fifo = tmp_path / "model.tflite"
    os.mkfifo(fifo)
    assert model_format(fifo) is None
    with pytest.raises(ModelError, match="is a FIFO"):
        load_model(fifo)
    link = tmp_path / "zero.tflite"
    link.symlink_to("/dev/zero")
    with pytest.raises(ModelError, match="is a device"):
        load_model(link)

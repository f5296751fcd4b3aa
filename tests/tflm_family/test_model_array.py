"""The model embedded as a C array holds exactly the file's bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_tflm_family import c_array, parse_c_array

MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"


@pytest.mark.parametrize("name", ["kws_ref_model.tflite", "ad01_int8.tflite"])
def test_embedded_bytes_equal_the_file(name: str) -> None:
    data = (MODELS / name).read_bytes()
    source = c_array("hpx_tflm_model", data)
    assert parse_c_array(source) == data
    assert f"hpx_tflm_model_size = {len(data)}u;" in source
    assert "alignas(16) const uint8_t hpx_tflm_model[]" in source


def test_rejects_names_that_are_not_identifiers() -> None:
    with pytest.raises(ValueError):
        c_array("bad name", b"\x00")

"""Input bytes: zeros, seeded random, .npy and .bin files, with size and dtype checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hpx_tflm_family import InputSpec, input_bytes

from hpx_core.errors import ConfigError
from hpx_core.reading import load_model

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def test_zeros_and_seeded_random() -> None:
    model = load_model(KWS)
    assert input_bytes(InputSpec.parse("zeros"), model) == (bytes(490),)
    first = input_bytes(InputSpec.parse("random", seed=7), model)
    assert first == input_bytes(InputSpec.parse("random", seed=7), model)
    assert first != input_bytes(InputSpec.parse("random", seed=8), model)
    assert len(first[0]) == 490 and len(set(first[0])) > 100


def test_npy_and_bin_files(tmp_path: Path) -> None:
    model = load_model(KWS)
    array = np.arange(490, dtype=np.int64).astype(np.int8).reshape(1, 49, 10, 1)
    np.save(tmp_path / "x.npy", array)
    (tmp_path / "x.bin").write_bytes(array.tobytes())
    spec = InputSpec.parse(str(tmp_path / "x.npy"))
    assert spec.describe().startswith("file ")
    assert input_bytes(spec, model) == (array.tobytes(),)
    assert input_bytes(InputSpec.parse(str(tmp_path / "x.bin")), model) == (array.tobytes(),)


def test_wrong_files_are_config_errors(tmp_path: Path) -> None:
    model = load_model(KWS)
    np.save(tmp_path / "f.npy", np.zeros((1, 49, 10, 1), np.float32))
    (tmp_path / "short.bin").write_bytes(bytes(10))
    with pytest.raises(ConfigError, match="dtype"):
        input_bytes(InputSpec.parse(str(tmp_path / "f.npy")), model)
    with pytest.raises(ConfigError, match="490"):
        input_bytes(InputSpec.parse(str(tmp_path / "short.bin")), model)
    with pytest.raises(ConfigError, match="not found"):
        input_bytes(InputSpec.parse(str(tmp_path / "missing.npy")), model)

"""A too-small model.arena_size stops with one error naming the bytes the model needs (measured
by a second run with a large arena) and the config line that fits; that size runs, and 64 bytes
less is refused the same way. Two MLPerf Tiny models on qemu-m55.

Needs the pinned sources (mirrors or network), the Arm toolchain and QEMU.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from profiles import profile_run

from hpx_core.errors import ConfigError
from hpx_core.pipeline.memory_pass import NAME as MEMORY
from hpx_core.results.memory import MemoryUse

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"


def refused_need(model: Path, work: Path, arena: int) -> int:
    """The bytes the refusal of ``arena`` names; its sentence and hint checked on the way."""
    with pytest.raises(ConfigError) as caught:
        profile_run(model, "tflm", "qemu-m55", work, backend="reference", iterations=1,
                    arena_size=arena)
    error = caught.value
    assert f"model.arena_size: {arena:,} bytes is too small" in error.message
    found = re.search(r"which needs ([\d,]+) bytes \(measured in a second run", error.message)
    assert found, error.message
    need = int(found.group(1).replace(",", ""))
    assert error.hint == f"set `model.arena_size: {need}` in the config, the smallest arena " \
                         "that fits"
    assert "\n" not in error.message and "Traceback" not in str(error)
    return need


@pytest.mark.parametrize("name", ["kws_ref_model.tflite", "ad01_int8.tflite"])
def test_the_named_size_runs_and_64_bytes_less_is_refused(name: str, tmp_path: Path) -> None:
    model = MODELS / name
    need = refused_need(model, tmp_path / "small", 1024)
    fits = profile_run(model, "tflm", "qemu-m55", tmp_path / "fits", backend="reference",
                       iterations=1, arena_size=need)
    use = fits.record.result(MEMORY, MemoryUse) if fits.record is not None else None
    assert use is not None
    (arena,) = use.buffers
    assert arena.configured == need and arena.needed == need
    assert refused_need(model, tmp_path / "less", need - 64) == need

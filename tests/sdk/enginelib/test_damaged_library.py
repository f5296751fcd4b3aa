"""A damaged engine library heals: a real library archive (the loops engine's, built by the
real toolchain into a private cache) truncated, emptied or replaced by garbage is built once
more by the next profile, which runs with the same counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from emulated_firmware import require_tools
from loops_engine import loops_registry

from hpx_core import pipeline
from hpx_core.pipeline import ProfileOutcome

REPO = Path(__file__).resolve().parents[3]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"

pytestmark = pytest.mark.emulated


def _profile(out: Path) -> ProfileOutcome:
    overrides = {"engine.type": ("loops", "test"), "target.board": ("qemu-m55", "test"),
                 "profiling.iterations": (2, "test"), "output.dir": (str(out), "test")}
    return pipeline.profile(KWS, None, overrides, loops_registry())


@pytest.mark.parametrize("damage", ["truncated", "empty", "garbage"])
def test_a_damaged_archive_is_built_again_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    require_tools()
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    first = _profile(tmp_path / "first")
    assert first.contribution is not None and first.contribution.libraries[0].built
    (archive,) = (tmp_path / "cache" / "engines").glob("loops_plain-*/**/*.a")
    data = archive.read_bytes()
    archive.write_bytes({"truncated": data[: len(data) // 2], "empty": b"",
                         "garbage": b"\xde\xad" * (len(data) // 2)}[damage])
    healed = _profile(tmp_path / "healed")
    assert healed.contribution is not None and healed.contribution.libraries[0].built
    assert archive.read_bytes() == data  # the same objects, built again
    assert healed.measurement is not None and first.measurement is not None
    assert healed.measurement.whole_median == first.measurement.whole_median
    warm = _profile(tmp_path / "warm")
    assert warm.contribution is not None and not warm.contribution.libraries[0].built

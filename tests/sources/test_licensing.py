"""License data decides where an engine may run, before anything is fetched."""

from __future__ import annotations

import importlib
from pathlib import Path

import attrs
import pytest

from hpx_core.boards import get_board
from hpx_core.errors import LicenseError
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.licensing import check_may_run, may_run
from hpx_core.sources.materialize import materialize

mat = importlib.import_module("hpx_core.sources.materialize")
AMBIQ_LICENSE = "LicenseRef-Ambiq-Apollo-SDK"


@pytest.mark.parametrize(
    ("engine", "backend"),
    [("tflm", "reference"), ("tflm", "cmsis_nn"), ("executorch", "arm")],
)
def test_openly_licensed_builds_may_run_on_arm_cpus(engine: str, backend: str) -> None:
    assert may_run(engine, backend, "Arm").allowed
    check_may_run(engine, backend, get_board("qemu-m55"))


@pytest.mark.parametrize(
    ("engine", "backend", "blocker"),
    [
        ("helia-rt", None, "helia-rt"),
        ("helia-aot", None, "helia-aot"),
        ("executorch", "ns", "ns-cmsis-nn"),
    ],
)
def test_ambiq_licensed_builds_only_on_ambiq_cpus(
    engine: str, backend: str | None, blocker: str
) -> None:
    verdict = may_run(engine, backend, "Arm")
    assert not verdict.allowed
    assert blocker in [c.name for c in verdict.blockers]
    assert all(AMBIQ_LICENSE in c.license for c in verdict.blockers)
    assert may_run(engine, backend, "Ambiq").allowed


@attrs.frozen
class Silicon:
    """An Apollo EVB as the license check sees it (name and CPU vendor)."""

    name: str
    cpu_vendor: str = "Ambiq"


def test_refusal_names_the_license_and_the_boards_that_may_run_it() -> None:
    qemu = get_board("qemu-m55")
    apollo = Silicon("apollo510_evb")
    with pytest.raises(LicenseError) as caught:
        check_may_run("helia-rt", None, qemu, [qemu, apollo])
    error = caught.value
    assert AMBIQ_LICENSE in error.message
    assert "qemu-m55" in error.message and "Arm" in error.message
    assert "apollo510_evb" in error.hint
    assert "qemu-m55" not in error.hint.split(";")[0]
    assert "tflm" in error.hint  # what to choose instead


def test_refusal_comes_before_any_fetch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(mat, "materialize_pin", lambda *a, **k: calls.append("fetch"))
    store = SourceCache(tmp_path / "cache")
    with pytest.raises(LicenseError, match="helia-rt"):
        materialize("helia-rt", board=get_board("qemu-m55"), cache=store)
    assert calls == []
    assert not store.root.exists()

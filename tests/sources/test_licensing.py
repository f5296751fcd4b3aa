"""The licenses engines declare decide where they may run, before anything is fetched."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from hpx_core.boards import all_boards, get_board
from hpx_core.errors import LicenseError
from hpx_core.plugins import load_registry
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.licensing import check_may_run, may_execute, may_run, why
from hpx_core.sources.materialize import materialize

mat = importlib.import_module("hpx_core.sources.materialize")
AMBIQ_LICENSE = "LicenseRef-Ambiq-Apollo-SDK"
QEMU, APOLLO = get_board("qemu-m55"), get_board("apollo510_evb")


@pytest.fixture(scope="module")
def catalog() -> Any:
    return load_registry().catalog


@pytest.mark.parametrize(
    ("engine", "backend"),
    [("tflm", "reference"), ("tflm", "cmsis_nn"), ("executorch", "arm")],
)
def test_openly_licensed_builds_may_run_on_arm_cpus(catalog: Any, engine: str,
                                                    backend: str) -> None:
    assert may_run(catalog, engine, backend, QEMU).allowed
    check_may_run(catalog, engine, backend, QEMU, all_boards().values())


@pytest.mark.parametrize(
    ("engine", "backend", "blocker"),
    [
        ("helia-rt", None, "helia-rt"),
        ("helia-aot", None, "helia-aot"),
        ("executorch", "ns", "ns-cmsis-nn"),
    ],
)
def test_ambiq_licensed_builds_only_on_ambiq_cpus(
    catalog: Any, engine: str, backend: str | None, blocker: str
) -> None:
    verdict = may_run(catalog, engine, backend, QEMU)
    assert not verdict.allowed
    assert blocker in [c.name for c in verdict.blockers]
    assert all(AMBIQ_LICENSE in c.license for c in verdict.blockers)
    assert may_run(catalog, engine, backend, APOLLO).allowed


def test_restrictions_read_by_vendor_and_by_board_family() -> None:
    assert may_execute("any", QEMU) and may_execute("any", APOLLO)
    assert may_execute("cpu-vendor:Ambiq", APOLLO) and not may_execute("cpu-vendor:Ambiq", QEMU)
    assert may_execute("board-family:apollo", APOLLO)
    assert not may_execute("board-family:apollo", QEMU)
    assert not may_execute("cpu-vendor:Acme", APOLLO)
    assert why("cpu-vendor:Acme") == "permits execution only on Acme-manufactured CPUs"


def test_refusal_names_the_license_and_the_boards_that_may_run_it(catalog: Any) -> None:
    with pytest.raises(LicenseError) as caught:
        check_may_run(catalog, "helia-rt", None, QEMU, [QEMU, APOLLO])
    error = caught.value
    assert AMBIQ_LICENSE in error.message
    assert "Ambiq-manufactured CPUs" in error.message
    assert "qemu-m55" in error.message and "Arm" in error.message
    assert "apollo510_evb" in error.hint
    assert "qemu-m55" not in error.hint.split(";")[0]
    assert "tflm" in error.hint  # what to choose instead


def test_refusal_comes_before_any_fetch(catalog: Any, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(mat, "materialize_pin", lambda *a, **k: calls.append("fetch"))
    store = SourceCache(tmp_path / "cache")
    with pytest.raises(LicenseError, match="helia-rt"):
        materialize(catalog, "helia-rt", board=QEMU, cache=store)
    assert calls == []
    assert not store.root.exists()


def test_an_engine_without_pins_is_restricted_by_none(catalog: Any) -> None:
    """A third-party engine may bring its sources itself; ``hpx config validate`` and the
    pipeline's license check then pass it on every board."""
    assert "echo" not in catalog.engines
    for board in (QEMU, APOLLO):
        assert may_run(catalog, "echo", None, board).allowed
        check_may_run(catalog, "echo", None, board, all_boards().values())

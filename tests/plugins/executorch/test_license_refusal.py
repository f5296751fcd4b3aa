"""``--backend ns`` on an emulated board: refused before anything is fetched, naming the license."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.engine import executorch_sources

from hpx_core.boards import get_board
from hpx_core.errors import LicenseError
from hpx_core.pipeline import profile

from .conftest import CATALOG, TIER1


def test_ns_on_qemu_is_refused_before_any_source_is_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    with pytest.raises(LicenseError) as caught:
        executorch_sources(CATALOG, "ns", get_board("qemu-m55"), ExecutorchConfig())
    assert "LicenseRef-Ambiq-Apollo-SDK" in caught.value.message
    assert "qemu-m55" in caught.value.message
    assert "apollo510_evb" in caught.value.hint
    assert not cache.exists()  # nothing cloned, nothing locked


def test_the_profile_pipeline_stops_at_the_license_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    stages: list[str] = []
    overrides = {"engine.type": ("executorch", "--engine"), "engine.backend": ("ns", "--backend"),
                 "target.board": ("qemu-m55", "--board")}
    with pytest.raises(LicenseError):
        profile(TIER1 / "tier1_ns.pte", None, overrides, on_stage=stages.append)
    assert stages[-1] == "license check" and "sources" not in stages
    assert not (tmp_path / "cache").exists()

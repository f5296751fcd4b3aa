"""helia-aot on an emulated board is refused before fetching; M55 code is refused on M4 boards."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hpx_heliaaot.compiler import check_platform
from hpx_heliaaot.config import HeliaAotConfig
from hpx_heliaaot.engine import aot_sources

from hpx_core.boards import get_board
from hpx_core.errors import ConfigError, LicenseError, ToolError
from hpx_core.pipeline import profile

from .conftest import CATALOG, MODELS, fake_helia_aot


def test_helia_aot_on_qemu_is_refused_before_any_source_is_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    with pytest.raises(LicenseError) as caught:
        aot_sources(CATALOG, get_board("qemu-m55"), HeliaAotConfig())
    assert "helia-aot is LicenseRef-Ambiq-Apollo-SDK" in caught.value.message
    assert "qemu-m55" in caught.value.message
    assert not cache.exists()


def test_the_profile_pipeline_stops_at_the_license_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    stages: list[str] = []
    overrides = {"engine.type": ("helia-aot", "--engine"), "target.board": ("qemu-m55", "--board"),
                 "output.dir": (str(tmp_path / "out"), "--output")}
    with pytest.raises(LicenseError):
        profile(MODELS / "kws_ref_model.tflite", None, overrides, on_stage=stages.append)
    assert stages[-1] == "license check" and "sources" not in stages
    assert not (tmp_path / "cache").exists()


def test_a_helia_aot_below_the_floor_stops_the_profile_at_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", [str(fake_helia_aot(tmp_path / "site", "0.17.2")), *sys.path])
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    stages: list[str] = []
    overrides = {"engine.type": ("helia-aot", "--engine"),
                 "target.board": ("apollo510_evb", "--board")}
    with pytest.raises(ToolError, match=r"0\.17\.2 is below the supported minimum 0\.18\.0"):
        profile(MODELS / "kws_ref_model.tflite", None, overrides, on_stage=stages.append)
    assert "sources" not in stages
    assert not (tmp_path / "cache").exists()


def test_m55_code_is_refused_on_an_m4_board() -> None:
    with pytest.raises(ConfigError) as caught:
        check_platform(get_board("apollo4p_evb"), "apollo510_evb")
    assert "MVE" in caught.value.message and "cortex-m4" in caught.value.message
    assert "engine.config.platform" in caught.value.hint


def test_an_m4_board_is_accepted_when_converted_for_an_m4_platform() -> None:
    assert check_platform(get_board("apollo4p_evb"), None) == "apollo4p_evb"
    assert check_platform(get_board("apollo510_evb"), None) == "apollo510_evb"


def test_an_unknown_platform_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="does not know the platform 'no_such_evb'"):
        check_platform(get_board("apollo510_evb"), "no_such_evb")

"""helia-rt on an emulated board: refused before anything is fetched, naming the license."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_heliart.config import HeliaRtConfig, ReleaseSource
from hpx_heliart.engine import heliart_sources

from hpx_core.boards import get_board
from hpx_core.errors import LicenseError
from hpx_core.pipeline import profile

from .conftest import CATALOG, MODELS


@pytest.mark.parametrize("backend", ["helia", "cmsis_nn", "reference"])
def test_every_backend_on_qemu_is_refused_before_any_source_is_touched(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    with pytest.raises(LicenseError) as caught:
        heliart_sources(CATALOG, backend, get_board("qemu-m55"), HeliaRtConfig())
    assert "LicenseRef-Ambiq-Apollo-SDK" in caught.value.message
    assert "qemu-m55" in caught.value.message
    assert "apollo510_evb" in caught.value.hint
    assert not cache.exists()  # nothing cloned, nothing locked


def test_a_release_download_is_refused_on_qemu_before_downloading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    asset = tmp_path / "never-read"
    config = HeliaRtConfig(source=ReleaseSource(repo=asset.as_uri(), ref="v1.17.0"))
    with pytest.raises(LicenseError):
        heliart_sources(CATALOG, "helia", get_board("qemu-m4"), config)
    assert not cache.exists()


def test_the_profile_pipeline_stops_at_the_license_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    stages: list[str] = []
    overrides = {"engine.type": ("helia-rt", "--engine"), "engine.backend": ("helia", "--backend"),
                 "target.board": ("qemu-m55", "--board"),
                 "output.dir": (str(tmp_path / "out"), "--output")}
    with pytest.raises(LicenseError):
        profile(MODELS / "kws_ref_model.tflite", None, overrides, on_stage=stages.append)
    assert stages[-1] == "license check" and "sources" not in stages
    assert not (tmp_path / "cache").exists()

"""``source_path`` / ``HELIART_SOURCE_PATH``: a local heliaRT checkout in place of the pin."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hpx_heliart.config import HeliaRtConfig
from hpx_heliart.engine import heliart_sources
from hpx_heliart.identity import PINS

from hpx_core.boards import get_board
from hpx_core.errors import SourceError
from hpx_core.sources import materialize_pin

from .conftest import CATALOG, VERSION_HEADER, version_header

pytestmark = pytest.mark.e2e


def pinned_checkout() -> Path:
    return materialize_pin(PINS.pin("helia-rt")).repos[0].path


def test_a_checkout_at_the_pin_keeps_the_run_qualified() -> None:
    root = pinned_checkout()
    sources = heliart_sources(CATALOG, "reference", get_board("apollo510_evb"),
                              HeliaRtConfig(source_path=root))
    assert sources.path_of("helia-rt") == root.resolve()
    assert sources.provenance == "qualified-with-engine-override"


def test_an_unverifiable_tree_below_the_floor_is_refused(tmp_path: Path) -> None:
    root = pinned_checkout()
    copy = tmp_path / "helia-rt"
    for marker in PINS.pin("helia-rt").markers:
        (copy / marker).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / marker, copy / marker)
    (copy / VERSION_HEADER).write_text(version_header("1.15.0"), encoding="utf-8")
    with pytest.raises(SourceError) as caught:
        heliart_sources(CATALOG, "reference", get_board("apollo510_evb"),
                        HeliaRtConfig(source_path=copy))
    assert str(copy) in caught.value.message and "not at the pin" in caught.value.message

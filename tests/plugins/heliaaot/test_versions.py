"""helia-aot's floor (read from its installed metadata) and its pairing with ns-cmsis-nn."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hpx_heliaaot.identity import PINS
from hpx_heliaaot.versions import check_pair, helia_aot_pin, require_helia_aot

from hpx_core.errors import ToolError
from hpx_core.sources import core_pins, merge_pins

from .conftest import fake_helia_aot, ns_cmsis_nn_tree

CATALOG = merge_pins(core_pins(), PINS)


def test_the_installed_helia_aot_meets_the_floor() -> None:
    assert require_helia_aot() >= require_helia_aot().__class__("0.18.0")


def test_a_helia_aot_below_the_floor_is_refused_with_the_pip_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", [str(fake_helia_aot(tmp_path, "0.17.2")), *sys.path])
    with pytest.raises(ToolError) as caught:
        require_helia_aot()
    assert "helia-aot 0.17.2 is below the supported minimum 0.18.0" in caught.value.message
    assert 'pip install "helia-aot>=0.18.0"' in caught.value.hint


def test_the_default_helia_aot_matches_the_pinned_ns_cmsis_nn() -> None:
    assert helia_aot_pin().pairs_with == "0.18.0"
    pyproject = Path(__file__).resolve().parents[3] / "plugins/hpx_heliaaot/pyproject.toml"
    assert '"helia-aot>=0.18.0,<0.19"' in pyproject.read_text(encoding="utf-8")


def test_a_helia_aot_needing_newer_kernels_is_refused_with_both_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_helia_aot(tmp_path / "site", "1.1.0", kernels="7.47.0")
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    ns = ns_cmsis_nn_tree(tmp_path / "ns-cmsis-nn", "7.29.2")
    with pytest.raises(ToolError) as caught:
        check_pair(CATALOG, ns)
    message, hint = caught.value.message, caught.value.hint
    assert "helia-aot 1.1.0" in message and ">= 7.47.0" in message and "is 7.29.2" in message
    assert 'pip install "helia-aot==0.18.0"' in hint and "ns-cmsis-nn >= 7.47.0" in hint


def test_a_matching_pair_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = fake_helia_aot(tmp_path / "site", "1.1.0", kernels="7.47.0")
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    assert str(check_pair(CATALOG, ns_cmsis_nn_tree(tmp_path / "ns", "7.47.1"))) == "7.47.1"


def test_an_unknown_helia_aot_layout_fails_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_helia_aot(tmp_path / "site", "2.0.0", kernels="7.50.0")
    (site / "helia_aot" / "aot" / "defines.py").write_text("KERNELS = 'whatever'\n")
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    with pytest.raises(ToolError, match="cannot tell which ns-cmsis-nn"):
        check_pair(CATALOG, ns_cmsis_nn_tree(tmp_path / "ns", "7.29.2"))

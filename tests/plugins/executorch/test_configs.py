"""The shipped executorch configs validate; the ATfE ones stop clearly without ATFE_ROOT."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.config.validate import validate_config
from hpx_core.errors import ToolError
from hpx_core.firmware import get_toolchain

from .conftest import REPO

CONFIGS = sorted((REPO / "configs" / "executorch").glob("*.yaml"))


def test_all_six_configs_are_there() -> None:
    assert [c.name for c in CONFIGS] == [
        "tier1_arm.yaml", "tier1_arm_atfe.yaml", "tier1_ns.yaml", "tier1_ns_atfe.yaml",
        "tier1mean_arm.yaml", "tier1mean_ns.yaml"]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_config_validates_and_ns_names_an_apollo_board(path: Path) -> None:
    config = validate_config(path, {}).config
    assert config.engine.type == "executorch"
    assert config.model.path is not None and config.model.path.is_file()
    board = get_board(config.target.board)
    if config.engine.backend == "ns":
        assert board.cpu_vendor == "Ambiq"
    else:
        assert board.emulated


@pytest.mark.parametrize("name", ["tier1_arm_atfe.yaml", "tier1_ns_atfe.yaml"])
def test_atfe_without_atfe_root_stops_with_the_reason(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATFE_ROOT", raising=False)
    config = validate_config(REPO / "configs" / "executorch" / name, {}).config
    with pytest.raises(ToolError) as caught:
        get_toolchain(config.target.toolchain).require()
    assert "ATFE_ROOT is not set" in caught.value.message

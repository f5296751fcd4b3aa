"""helia-aot placement: the user's memory words become heliaAOT's tensor rules."""

from __future__ import annotations

import pytest
from hpx_heliaaot.config import HeliaAotConfig
from hpx_heliaaot.memory import aot_needs, tensor_rules

from hpx_core.boards import get_board
from hpx_core.contract import EngineSelection, MemoryRequest
from hpx_core.errors import ConfigError
from hpx_core.firmware.layout import plan_layout
from hpx_core.reading import load_model

from .conftest import MODELS

ENGINE = EngineSelection("helia-aot", None, HeliaAotConfig())


def _layout(location: str | None = None, arena_location: str | None = None):  # type: ignore[no-untyped-def]
    board = get_board("apollo510_evb")
    request = MemoryRequest(ENGINE, board, load_model(MODELS / "kws_ref_model.tflite"),
                            location=location, arena_location=arena_location)
    return plan_layout(board, aot_needs(request))


def test_unset_options_leave_heliaaots_own_plan() -> None:
    assert tensor_rules(_layout()) == [] and tensor_rules(None) == []


def test_options_become_constant_persistent_and_scratch_rules() -> None:
    assert tensor_rules(_layout("flash", "sram")) == [
        {"type": "constant", "attributes": {"memory": "MRAM"}},
        {"type": "persistent", "attributes": {"memory": "SRAM"}},
        {"type": "scratch", "attributes": {"memory": "SRAM"}},
    ]


def test_a_memory_heliaaot_has_no_type_for_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"model\.location is code, a memory heliaAOT does not"):
        _layout("code")

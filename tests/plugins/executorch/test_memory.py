"""The executorch engine's memory needs: the program and four buffers, each with its option."""

from __future__ import annotations

import pytest
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.memory import executorch_needs
from hpx_executorch.settings import resolve

from hpx_core.boards import get_board
from hpx_core.contract import EngineSelection, MemoryRequest
from hpx_core.errors import ConfigError
from hpx_core.firmware.layout import plan_layout
from hpx_core.reading import load_model

from .conftest import TIER1

ENGINE = EngineSelection("executorch", "arm", ExecutorchConfig())


def _request(board: str, **options: object) -> MemoryRequest:
    return MemoryRequest(ENGINE, get_board(board), load_model(TIER1 / "tier1_arm.pte"),
                         **options)  # type: ignore[arg-type]


def test_sizes_follow_the_runners_buffers() -> None:
    request = _request("qemu-m55")
    config = ExecutorchConfig(method_arena_size=1000, temporary_arena_size=64)
    settings = resolve(config, "arm", request.model)
    program, planned, method, temporary, io = executorch_needs(request, config, settings).buffers
    inputs = sum(t.size_bytes or 0 for t in request.model.inputs)
    assert program.size == request.model.size_bytes + inputs and not program.writable
    assert planned.size == settings.planned_arena_size
    assert (method.size, temporary.size, io.size) == (2000, 80, settings.output_size)
    assert io.option == "engine.config.io_location"


@pytest.mark.parametrize(("board", "sram_region"), [("apollo510_evb", "SHARED_SRAM"),
                                                    ("qemu-m55", "SRAM")])
def test_sram_and_the_default_are_where_they_always_were(board: str, sram_region: str) -> None:
    """Before use words, ``sram`` meant shared SRAM on Apollo and .bss elsewhere; the default
    the data TCM on Apollo and SRAM on the emulated boards. The words keep that."""
    request = _request(board)
    config = ExecutorchConfig(planned_arena_location="sram", io_location="sram")
    needs = executorch_needs(request, config, resolve(config, "arm", request.model))
    layout = plan_layout(request.board, needs)
    assert layout.place("planned_arena").region == sram_region
    assert layout.place("io").region == sram_region
    data = request.board.regions_for("data")[0].name
    assert layout.place("method_arena").region == data
    assert layout.place("method_arena").section == ""


def test_the_single_arena_option_is_refused() -> None:
    request = _request("qemu-m55", arena_location="tcm")
    config = ExecutorchConfig()
    with pytest.raises(ConfigError, match=r"engine\.config\.planned_arena_location"):
        executorch_needs(request, config, resolve(config, "arm", request.model))

"""What a MicroInterpreter engine asks to have placed: the model and the tensor arena."""

from __future__ import annotations

from pathlib import Path

from hpx_tflm_family import family_needs, planned_arena

from hpx_core.boards import get_board
from hpx_core.contract import CodeSize, EngineSelection, FirmwareRequest, MemoryRequest, SourceSet
from hpx_core.firmware.layout import plan_layout
from hpx_core.reading import load_model

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
ENGINE = EngineSelection("tflm", None, None)
CODE = CodeSize(24 * 1024, 128 * 1024)


def _request(board: str, **options: object) -> MemoryRequest:
    return MemoryRequest(ENGINE, get_board(board), load_model(KWS), **options)  # type: ignore[arg-type]


def test_the_model_and_the_arena_with_their_options() -> None:
    model, arena = family_needs(_request("qemu-m55", arena_size=30_001), CODE).buffers
    assert (model.name, model.size, model.writable, model.option) == (
        "model", KWS.stat().st_size, False, "model.location")
    assert (arena.name, arena.size, arena.writable, arena.option, arena.resize) == (
        "arena", 30_016, True, "model.arena_location", "model.arena_size")


def test_a_probe_arena_is_half_the_memory_it_is_placed_in() -> None:
    default = family_needs(_request("qemu-m55"), CODE).buffers[1]
    in_dtcm = family_needs(_request("qemu-m55", arena_location="tcm"), CODE).buffers[1]
    assert (default.size, in_dtcm.size) == (2 * 1024 * 1024, 256 * 1024)


def test_the_firmware_gets_the_arena_the_plan_placed(tmp_path: Path) -> None:
    request = _request("qemu-m55", arena_location="tcm")
    layout = plan_layout(request.board, family_needs(request, CODE))
    firmware = FirmwareRequest(ENGINE, request.board, request.model, SourceSet(()), "gcc", 1,
                               tmp_path, tmp_path / "run.log", layout=layout)
    plan = planned_arena(firmware)
    assert (plan.size, plan.source) == (256 * 1024, "probe")

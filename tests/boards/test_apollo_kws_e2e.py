"""`hpx profile` of the MLPerf Tiny KWS model with tflm on Apollo boards, no probe attached.

Marked e2e (pinned sources): the pipeline builds the firmware, verifies its kernels, and stops
after the build because no probe is attached, naming the firmware; the image is then checked
for placement: the tensor arena in data memory, the model in flash, the boot vectors where
the boot loader looks.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.contract import PlannedBuffer
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.firmware.placement import ARENA_USES, WEIGHTS_USES, check_elf
from hpx_core.probe.probes import list_probes
from hpx_core.probe.pyocd_api import pyocd_api

pytestmark = pytest.mark.e2e

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def _build_without_probe(board_name: str, tmp_path: Path, **more: object) -> Path:
    """``hpx profile`` of KWS with tflm on ``board_name``: it stops after the build; the ELF."""
    from hpx_core.pipeline import StageUnavailableError, profile

    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs the Arm toolchain")
    if list_probes(pyocd_api()):
        pytest.skip("a debug probe is attached: this test is about running without one")
    overrides = {
        "engine.type": ("tflm", "test"),
        "engine.backend": ("reference", "test"),
        "target.board": (board_name, "test"),
        "output.dir": (str(tmp_path / "results"), "test"),
    } | {key: (value, "test") for key, value in more.items()}
    with pytest.raises(StageUnavailableError) as caught:
        profile(KWS, None, overrides)
    message = caught.value.message
    assert message.startswith("stopped after the build: no debug probe is attached")
    found = re.search(r"the firmware for \S+ is (\S+\.elf)", message)
    assert found
    return Path(found.group(1))


@pytest.mark.parametrize(
    "board_name", ["apollo510_evb", "apollo330mP_evb", "apollo4p_evb", "apollo3p_evb"])
def test_kws_profile_stops_after_a_placed_build(board_name: str, tmp_path: Path) -> None:
    elf = _build_without_probe(board_name, tmp_path)
    symbols = {s.name: s for s in symbol_inventory(elf).symbols}
    board = get_board(board_name)
    report = check_elf(
        board,
        elf,
        [
            PlannedBuffer("arena", "hpx_tflm_arena", symbols["hpx_tflm_arena"].size, ARENA_USES),
            PlannedBuffer("model", "hpx_tflm_model", symbols["hpx_tflm_model"].size, WEIGHTS_USES),
        ],
    )
    arena, model = report.buffers
    assert next(r for r in board.memory if r.name == arena.region).serves("data")
    assert next(r for r in board.memory if r.name == model.region).serves("flash")
    assert model.size == KWS.stat().st_size


def test_counters_compile_the_first_event_pass_into_the_apollo510_firmware(
    tmp_path: Path,
) -> None:
    import lief

    from hpx_core.boards.counters import pmu_events
    from hpx_core.firmware.support import sdk_root, support_plan

    events = ["INST_RETIRED", "MVE_INST_RETIRED", "L1D_CACHE_REFILL", "L1D_CACHE", "STALL"]
    elf = _build_without_probe("apollo510_evb", tmp_path, **{"profiling.counters": events})
    table = next(s for s in symbol_inventory(elf).symbols if s.name == "hpx_pmu_events")
    binary = lief.ELF.parse(str(elf))
    assert binary is not None
    data = bytes(binary.get_content_from_virtual_address(table.address, table.size))
    numbers = [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]
    sdk = support_plan(get_board("apollo510_evb")).sdk
    assert sdk is not None
    known = pmu_events(sdk_root(sdk))
    assert numbers == [known[name] for name in events[:4]] + [0xFFFF]  # pass 1 of 2
    assert next(s for s in symbol_inventory(elf).symbols if s.name == "hpx_slot_event_total")

"""The Apollo start-up as built: the stack pointer from the vector table, and the clock modes.

Marked e2e: the SDK comes through source materialization. The real ELFs are disassembled with
arm-none-eabi-objdump: the reset handler's first instructions must load SP from the vector
table's first word as the SDK start-ups do (`ldr sp, [r1]`), and an image built for the
high-performance mode must call the HAL's own mode switch (and, on the Apollo5 family,
SpotManager) with SpotManager's timer in its vector slot; the LP image links no HAL at all.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.selftest.layers import selftest_contribution

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("arm-none-eabi-objdump") is None:
        pytest.skip("needs the Arm toolchain")
    return tmp_path_factory.mktemp("apollo-clock")


@functools.cache
def _elf(name: str, clock: str, root: Path) -> Path:
    board = get_board(name).at_clock(clock)
    project = render_project(root / f"{name}-{clock}", board, selftest_contribution(board),
                             HarnessSettings("selftest"))
    return build_project(project, get_toolchain("arm-none-eabi-gcc")).elf


def _disassembly(elf: Path, function: str) -> list[str]:
    text = subprocess.run(["arm-none-eabi-objdump", "-d", f"--disassemble={function}", str(elf)],
                          check=True, capture_output=True, text=True).stdout
    body = text[text.index(f"<{function}>:"):]
    return [line.split("\t", 2)[-1].strip() for line in body.splitlines()[1:] if "\t" in line]


def _symbols(elf: Path) -> dict[str, int]:
    return {s.name: s.address for s in symbol_inventory(elf).symbols}


@pytest.mark.parametrize("name", ["apollo510_evb", "apollo4p_evb"])
def test_reset_handler_loads_sp_from_the_vector_table_first(name: str, work: Path) -> None:
    code = _disassembly(_elf(name, "lp", work), "Reset_Handler")
    # VTOR <- the table, then SP <- its first word, before any other memory access
    assert re.match(r"ldr\s+r0, \[pc", code[0]) and re.match(r"ldr\s+r1, \[pc", code[1])
    assert code[2].startswith("str") and "r1, [r0" in code[2]
    assert re.match(r"ldr(\.w)?\s+sp, \[r1\]", code[3]), code[:5]
    assert "hpx_reset_continue" in code[4]


def test_the_lp_image_links_no_hal(work: Path) -> None:
    symbols = _symbols(_elf("apollo510_evb", "lp", work))
    assert "am_hal_pwrctrl_mcu_mode_select" not in symbols
    assert "hpx_apollo_clock" not in symbols


@pytest.mark.parametrize(("name", "mode", "spotmgr"), [
    ("apollo510_evb", 2, True), ("apollo330mP_evb", 3, True), ("apollo4p_evb", 2, False)])
def test_the_hp_image_switches_with_the_hal(name: str, mode: int, spotmgr: bool,
                                            work: Path) -> None:
    elf = _elf(name, "hp", work)
    code = _disassembly(elf, "hpx_apollo_clock")
    calls = [line for line in code if line.startswith("b")]
    assert any("am_hal_pwrctrl_mcu_mode_select" in line for line in calls)
    assert any("am_hal_spotmgr_init" in line for line in calls) is spotmgr
    assert any(re.match(rf"movs?\s+r0, #{mode}$", line) for line in code), code
    assert "hpx_apollo_clock" in "\n".join(_disassembly(elf, "hpx_reset_continue"))


def test_the_hp_apollo510_image_gives_spotmgr_its_timer(work: Path) -> None:
    elf = _elf("apollo510_evb", "hp", work)
    symbols = _symbols(elf)
    slot = symbols["hpx_vectors"] + 4 * (16 + 82)  # TIMER15, the SDK start-up's slot
    text = subprocess.run(["arm-none-eabi-objdump", "-s", f"--start-address={slot:#x}",
                           f"--stop-address={slot + 4:#x}", str(elf)],
                          check=True, capture_output=True, text=True).stdout
    word = int.from_bytes(bytes.fromhex(text.strip().splitlines()[-1].split()[1]), "little")
    assert word == symbols["am_timer15_isr"] | 1


def test_profile_in_hp_builds_and_stops_without_a_probe(tmp_path: Path) -> None:
    from hpx_core.pipeline import StageUnavailableError, profile
    from hpx_core.probe.probes import list_probes
    from hpx_core.probe.pyocd_api import pyocd_api

    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs the Arm toolchain")
    if list_probes(pyocd_api()):
        pytest.skip("a debug probe is attached: this test is about running without one")
    kws = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
    overrides = {"engine.type": ("tflm", "test"), "engine.backend": ("reference", "test"),
                 "target.board": ("apollo510_evb", "test"), "target.clock": ("hp", "--clock"),
                 "output.dir": (str(tmp_path / "results"), "test")}
    with pytest.raises(StageUnavailableError) as caught:
        profile(kws, None, overrides)
    found = re.search(r"the firmware for apollo510_evb is (\S+\.elf)", caught.value.message)
    assert found and caught.value.message.startswith("stopped after the build")
    symbols = _symbols(Path(found.group(1)))
    assert {"am_hal_spotmgr_init", "am_hal_pwrctrl_mcu_mode_select"} <= set(symbols)

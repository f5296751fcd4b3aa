"""The power firmware (the harness's power pass, HPX_POWER_PASS) for the Apollo boards an energy
run is for, built by the real toolchain from the pinned nsx-ambiq-sdk.

It drives the board's two power pads through the SoC's prebuilt HAL, as the SDK's own power
monitor does; the pass and its layer hook in hpx_layer_begin are compiled only in a power
build, so every other build is the firmware it was.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.errors import BuildError
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.firmware.builder import BuildResult
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.firmware.placement import check_elf
from hpx_core.firmware.support import support_plan
from hpx_core.selftest.layers import selftest_contribution

pytestmark = pytest.mark.e2e

POWER_BOARDS = ["apollo510_evb", "apollo4p_evb", "apollo330mP_evb"]
PADS = {"apollo510_evb": (29, 36), "apollo4p_evb": (22, 23), "apollo330mP_evb": (0, 1)}
"""The pads the pinned SDK's nsx_power_monitor.c drives on each part."""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs the Arm toolchain")
    return tmp_path_factory.mktemp("apollo-power")


@functools.cache
def build(name: str, root: Path, power: bool) -> BuildResult:
    board = get_board(name)
    switches = ("HPX_POWER_PASS",) if power else ()
    project = render_project(root / f"{name}-{power}", board, selftest_contribution(board),
                             HarnessSettings("selftest", switches=switches))
    return build_project(project, get_toolchain("arm-none-eabi-gcc"))


def calls(elf: Path, function: str) -> list[str]:
    """The functions ``function`` calls or tail-calls, in the order of its code (objdump)."""
    listing = subprocess.run(
        ["arm-none-eabi-objdump", "-d", f"--disassemble={function}", str(elf)],
        capture_output=True, text=True, check=True).stdout
    return re.findall(r"\sb(?:l|\.w)?\s+[0-9a-f]+ <(\w+)>", listing)


@pytest.mark.parametrize("name", POWER_BOARDS)
def test_the_power_firmware_drives_the_boards_pads_through_its_hal(name: str, work: Path) -> None:
    board = get_board(name)
    assert board.silicon is not None and board.silicon.power_gpios == PADS[name]
    result = build(name, work, power=True)
    check_elf(board, result.elf)
    assert sorted(calls(result.elf, "hpx_platform_power_state")) == [
        "am_hal_gpio_pinconfig", "am_hal_gpio_pinconfig",  # once, for both pads
        "am_hal_gpio_state_write", "am_hal_gpio_state_write"]
    gpio0, gpio1 = PADS[name]
    defines = (work / f"{name}-True" / "project" / "CMakeLists.txt").read_text()
    assert f"HPX_POWER_GPIO0={gpio0}" in defines and f"HPX_POWER_GPIO1={gpio1}" in defines
    order = calls(result.elf, "hpx_power_pass")
    # the host reads POWER and sends its go before any window; the transport never waits in one
    assert order.index("hpx_transport_wait_host") < order.index("hpx_platform_timed")
    assert "hpx_power_layer_begin" in calls(result.elf, "hpx_layer_begin")
    symbols = {s.name: s for s in symbol_inventory(result.elf).symbols}
    go = symbols["hpx_power_go"]
    assert any(r.origin <= go.address < r.origin + r.length for r in board.regions_for("data"))


@pytest.mark.parametrize("name", ["apollo510_evb"])
def test_a_build_without_the_pass_has_neither_pads_nor_hook(name: str, work: Path) -> None:
    elf = build(name, work, power=False).elf
    symbols = {s.name: s for s in symbol_inventory(elf).symbols}
    assert "am_hal_gpio_state_write" not in symbols
    assert "hpx_power_layer_begin" not in calls(elf, "hpx_layer_begin")
    assert "hpx_power_pass" not in symbols and "hpx_power_pass" not in calls(elf, "main")


def test_a_board_without_a_hal_for_its_pads_is_refused() -> None:
    with pytest.raises(BuildError, match="cannot drive power GPIOs"):
        support_plan(get_board("apollo3p_evb"), power=True)


def test_hpx_build_power_builds_a_models_power_firmware(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hpx_core.cli import main

    kws = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
    code = main(["build", str(kws), "--engine", "tflm", "--backend", "cmsis_nn", "--board",
                 "apollo510_evb", "--power", "--output-dir", str(tmp_path / "built")])
    out = capsys.readouterr().out
    assert code == 0, out
    (elf,) = (tmp_path / "built").glob("*/firmware.elf")  # the build bundle's
    assert "hpx_power_layer_begin" in calls(elf, "hpx_layer_begin")
    assert "am_hal_gpio_state_write" in calls(elf, "hpx_platform_power_state")

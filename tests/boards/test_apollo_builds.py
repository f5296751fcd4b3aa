"""The Apollo boards' firmware builds from the pinned nsx-ambiq-sdk: compile, link, placement.

Marked e2e: the SDK comes through source materialization (network, or mirrors via insteadOf).
The selftest firmware builds for all four boards; the memory map in boards.toml must be the
one the SDK's linker script declares; and the probe runner, against a fake pyocd, finds RTT
at the ELF's ``_SEGGER_RTT`` of the real Apollo510 image.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hpx_core.boards import all_boards, get_board
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.firmware.builder import BuildResult
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.firmware.placement import check_elf
from hpx_core.firmware.support import sdk_root, support_plan
from hpx_core.selftest.layers import selftest_contribution

pytestmark = pytest.mark.e2e

APOLLO = [name for name, board in all_boards().items() if board.silicon is not None]


@functools.cache
def build(name: str, root: Path) -> BuildResult:
    board = get_board(name)
    project = render_project(
        root / name, board, selftest_contribution(board), HarnessSettings("selftest")
    )
    return build_project(project, get_toolchain("arm-none-eabi-gcc"))


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs the Arm toolchain")
    return tmp_path_factory.mktemp("apollo")


def test_all_four_apollo_boards_are_there() -> None:
    assert sorted(APOLLO) == ["apollo330mP_evb", "apollo3p_evb", "apollo4p_evb", "apollo510_evb"]


@pytest.mark.parametrize("name", APOLLO)
def test_memory_map_is_the_sdk_linker_scripts(name: str) -> None:
    board = get_board(name)
    assert board.silicon is not None
    plan = support_plan(board)
    assert plan.sdk is not None
    script = (sdk_root(plan.sdk) / board.silicon.linker_script).read_text()
    memory = script[script.index("MEMORY") : script.index("}")]
    memory = re.sub(r"/\*.*?\*/", "", memory, flags=re.DOTALL)
    found = {
        m["name"]: (int(m["origin"], 16), int(m["length"], 0))
        for m in re.finditer(
            r"(?P<name>\w+)\s+\(\w+\)\s*:\s*ORIGIN = (?P<origin>0x[0-9A-Fa-f]+), "
            r"LENGTH = (?P<length>\w+)",
            memory,
        )
    }
    assert found == {r.name: (r.origin, r.length) for r in board.memory}


@pytest.mark.parametrize("name", APOLLO)
def test_selftest_firmware_builds_and_is_placed(name: str, work: Path) -> None:
    board = get_board(name)
    result = build(name, work)
    report = check_elf(board, result.elf)
    symbols = {s.name: s for s in symbol_inventory(result.elf).symbols}
    flash = board.regions_for("flash")[0]
    assert symbols["hpx_vectors"].address == flash.origin
    rtt = symbols["_SEGGER_RTT"]
    assert any(r.origin <= rtt.address < r.origin + r.length for r in board.regions_for("data"))
    expected_counter = "counter_pmu" if "pmu" in board.features else "counter_dwt"
    assert expected_counter in {Path(s).stem for s in _objects(result)}
    sizes = result.sizes
    print(  # the ELF sizes, for the record (pytest -s)
        f"\n{name}: text {sizes.text} B, data {sizes.data} B, bss {sizes.bss} B; "
        + ", ".join(f"{u.region.name} {u.used} B used" for u in report.regions),
        file=sys.stderr,
    )


def _objects(result: BuildResult) -> list[str]:
    return [p.name.removesuffix(".obj") for p in result.elf.parent.rglob("*.obj")]


def test_probe_runner_finds_rtt_at_the_apollo_elfs_symbol(work: Path) -> None:
    import fake_pyocd as fake

    from hpx_core.probe.pyocd_api import PyocdApi
    from hpx_core.probe.runner import ProbeSettings, run_on_probe
    from hpx_core.wire.encode import encode_record
    board = get_board("apollo510_evb")
    elf = build("apollo510_evb", work).elf
    rtt = next(s for s in symbol_inventory(elf).symbols if s.name == "_SEGGER_RTT")
    stream = encode_record(0, "END", {"status": 0})
    firmware = fake.Firmware(
        stream=stream, cb_address=rtt.address, buffer_address=rtt.address + 0x100
    )
    target = fake.FakeTarget([(r.origin, r.length) for r in board.memory], firmware)
    probe = fake.FakeProbe("000440112233", "J-Link OB Apollo510 EVB")
    desk = fake.Bench([probe], target, known_targets={"ap510nfa_cbr"})
    api = PyocdApi(
        desk.connect_helper(), desk.file_programmer(), fake.FakeError, fake.FakeTargetSupportError
    )
    out = run_on_probe(board, elf, api=api, settings=ProbeSettings(rtt_wait=1.0, poll=0.0))
    assert out.stream == stream
    assert out.rtt_address == rtt.address + 24
    assert desk.flashed == [(str(elf), "elf")]


def test_pmu_events_come_from_the_sdk_and_compile_into_the_pmu_backend(work: Path) -> None:
    import lief

    from hpx_core.boards.counters import plan_counters, pmu_events

    board = get_board("apollo510_evb")
    plan = support_plan(board)
    assert plan.sdk is not None
    known = pmu_events(sdk_root(plan.sdk))
    # Arm's event numbers (Armv8.1-M PMU architecture)
    assert known["CPU_CYCLES"] == 0x11 and known["INST_RETIRED"] == 0x08
    assert known["L1D_CACHE_REFILL"] == 0x03 and known["MVE_INST_RETIRED"] == 0x200
    names = ["INST_RETIRED", "MVE_INST_RETIRED", "L1D_CACHE_REFILL", "STALL", "L1D_CACHE"]
    counters = plan_counters(board, names, known)
    assert [len(p) for p in counters.passes] == [4, 1]
    project = render_project(
        work / "pmu-pass-1",
        board,
        selftest_contribution(board),
        HarnessSettings("selftest", pmu_events=counters.passes[0]),
        support=plan,
    )
    elf = build_project(project, get_toolchain("arm-none-eabi-gcc")).elf
    check_elf(board, elf)
    table = next(s for s in symbol_inventory(elf).symbols if s.name == "hpx_pmu_events")
    assert table.size == 2 * (4 + 1)  # four events and the terminator, uint16 each
    binary = lief.ELF.parse(str(elf))
    assert binary is not None
    data = binary.get_content_from_virtual_address(table.address, table.size)
    numbers = [int.from_bytes(bytes(data[i : i + 2]), "little") for i in range(0, table.size, 2)]
    assert numbers == [known[n] for n in counters.passes[0]] + [0xFFFF]


def test_hpx_build_reports_sizes_and_placement(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hpx_core.cli import main

    code = main(["build", "--board", "apollo4p_evb", "--work-dir", str(work / "cli-4p")])
    out = capsys.readouterr().out
    assert code == 0
    assert "placement on apollo4p_evb checked:" in out
    mram = next(line for line in out.splitlines() if "MCU_MRAM" in line)
    assert "flash" in mram and "0x00018000" in mram
    elf = work / "cli-4p" / "build" / "hpx_app.elf"
    used = next(
        u for u in check_elf(get_board("apollo4p_evb"), elf).regions if u.region.name == "MCU_MRAM"
    )
    assert f"{used.used:,} B used" in mram


def _calls(elf: Path, function: str) -> list[str]:
    """The functions ``function`` calls, in the order its code calls them (objdump)."""
    listing = subprocess.run(
        ["arm-none-eabi-objdump", "-d", f"--disassemble={function}", str(elf)],
        capture_output=True, text=True, check=True).stdout
    return re.findall(r"\bbl\w*\s+[0-9a-f]+ <(\w+)>", listing)


@pytest.mark.parametrize("name", ["apollo510_evb", "apollo4p_evb"])
def test_the_counter_starts_only_once_the_host_drained_the_start(name: str, work: Path) -> None:
    elf = build(name, work).elf
    calls = _calls(elf, "main")
    # the host attaches after the bootloader's hand-off; the counter starts (and is checked:
    # TRCENA, enable, advance) only after it read START
    assert calls.index("hpx_transport_wait_host") < calls.index("hpx_counter_init")
    symbols = {s.name: s for s in symbol_inventory(elf).symbols}
    assert symbols["hpx_transport_wait_host"].size > 2  # RTT's wait, not the harness's no-op

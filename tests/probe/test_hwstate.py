"""After a run the host reads which caches, power states and clock mode the part was in.

The fake target's registers hold what the Apollo510 start-up leaves there
(fake_pyocd.APOLLO510_STARTUP, spelled from the start-up's writes); the bundle's run.json
keeps every field as read, and a field that is not as Ambiq's firmware sets it is an issue.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from emulated_firmware import selftest_build
from fake_pyocd import (
    APOLLO510_STARTUP,
    Bench,
    FakeError,
    FakeProbe,
    FakeTarget,
    FakeTargetSupportError,
    Firmware,
)
from probe_board import BOARD, CB, RECORDED, RING

from hpx_core.boards import all_boards
from hpx_core.probe.hwstate import SOC_FIELDS
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeRunner, ProbeSettings
from hpx_core.run import run_and_record

FAST = ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0)  # a loaded host is slow
CCR = 0xE000ED14


@pytest.fixture(scope="module")
def elf() -> Path:
    built: Path = selftest_build("qemu-m55")[1].elf
    return built


def runner(registers: dict[int, int], clock: str = "lp") -> ProbeRunner:
    fw = Firmware(stream=RECORDED, cb_address=CB, buffer_address=RING, registers=registers)
    target = FakeTarget([(r.origin, r.length) for r in BOARD.memory], fw)
    desk = Bench([FakeProbe("00123456780", "Apollo510 EVB J-Link")], target,
                 known_targets={"ap510nfa_cbr"})
    api = PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                   FakeTargetSupportError)
    board = attrs.evolve(BOARD, clocks=(("lp", 96_000_000), ("hp", 250_000_000)))
    return ProbeRunner(board.at_clock(clock), FAST, api=api)


def test_the_bundle_records_caches_power_states_and_clock_mode(elf: Path,
                                                               tmp_path: Path) -> None:
    record = run_and_record(runner(dict(APOLLO510_STARTUP)), elf, tmp_path, engine="selftest")
    hardware = json.loads((record.bundle / "run.json").read_text())["hardware"]
    assert hardware == {
        "fpu_access": 0xF, "fpu_lazy_stacking": 3, "trace_enabled": 1,
        "icache": 1, "dcache": 1, "loop_branch_cache": 1,
        "cache_ram_power": 0, "epu_power": 0, "core_power": 0,
        "prefetch": 1, "prefetch_min_lookahead": 4, "prefetch_max_lookahead": 6,
        "prefetch_max_outstanding": 6, "debug_domain_power": 1, "mcu_perf_mode": 1,
    }
    assert record.measurement.validity == "valid"


def test_a_data_cache_left_off_is_an_issue_of_the_run(elf: Path, tmp_path: Path) -> None:
    registers = dict(APOLLO510_STARTUP)
    registers[CCR] &= ~(1 << 16)
    record = run_and_record(runner(registers), elf, tmp_path, engine="selftest")
    assert record.execution.details["hardware"]["dcache"] == 0  # type: ignore[index]
    assert record.measurement.validity == "degraded"
    assert record.measurement.issues == (
        "dcache reads 0, Ambiq's start-up sets 1 (nsx_cache_enable: "
        "am_hal_cachectrl_dcache_enable): counts were not taken as Ambiq's firmware runs",)


@pytest.mark.parametrize(("clock", "mode", "issues"), [
    ("hp", 2, ()),
    ("hp", 1, ("mcu_perf_mode reads 1",)),
    ("lp", 2, ("mcu_perf_mode reads 2",)),
])
def test_the_clock_mode_is_read_back_against_the_runs(
        elf: Path, tmp_path: Path, clock: str, mode: int, issues: tuple[str, ...]) -> None:
    registers = dict(APOLLO510_STARTUP)
    registers[0x4002_1000] = (registers[0x4002_1000] & ~(0x3 << 3)) | (mode << 3)
    record = run_and_record(runner(registers, clock), elf, tmp_path, engine="selftest")
    assert record.execution.details["hardware"]["mcu_perf_mode"] == mode  # type: ignore[index]
    said = record.measurement.issues
    assert len(said) == len(issues) and all(s.startswith(i) for s, i in zip(said, issues,
                                                                            strict=True))


def test_a_register_the_probe_cannot_read_is_recorded_unread(elf: Path,
                                                             tmp_path: Path) -> None:
    registers = {a: v for a, v in APOLLO510_STARTUP.items() if a != 0x4002_1008}
    record = run_and_record(runner(registers), elf, tmp_path, engine="selftest")
    assert record.execution.details["hardware"]["debug_domain_power"] is None  # type: ignore[index]
    assert record.measurement.issues == (
        "debug_domain_power: register 0x40021008 could not be read",)


def test_every_apollo_soc_has_its_fields() -> None:
    socs = {b.silicon.soc for b in all_boards().values() if b.silicon is not None}
    assert set(SOC_FIELDS) == socs
    for fields in SOC_FIELDS.values():
        names = [f.name for f in fields]
        assert len(names) == len(set(names))
        assert all(f.source for f in fields)

"""The Apollo boards' data agrees with their board support files and the license data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hpx_core.boards import all_boards, get_board
from hpx_core.plugins import load_registry
from hpx_core.sources.licensing import alternatives

TEMPLATES = Path(__file__).resolve().parents[2] / "firmware_templates"
APOLLO = ["apollo510_evb", "apollo330mP_evb", "apollo4p_evb", "apollo3p_evb"]


@pytest.mark.parametrize("name", APOLLO)
def test_board_header_matches_the_data(name: str) -> None:
    board = get_board(name)
    header = (TEMPLATES / "boards" / board.support / "board.h").read_text()
    clock = re.search(r"HPX_CPU_CLOCK_HZ (\d+)u", header)
    assert clock and int(clock.group(1)) == board.clock_hz
    assert f'"{board.name}"' in header
    for macro, fact in (
        ("HPX_HAS_MVE", "mve" in board.features),
        ("HPX_CORE_M55", board.core == "cortex-m55"),
    ):
        value = re.search(rf"{macro} (\d)", header)
        assert value and (value.group(1) == "1") == fact
    assert board.silicon is not None
    socs = dict(re.findall(r"#define HPX_SOC_(\w+) ([01])", header))  # apollo_init.c's switch
    assert [soc for soc, on in socs.items() if on == "1"] == [board.silicon.soc.upper()]
    script = (TEMPLATES / "boards" / board.support / "link.ld").read_text()
    assert f"INCLUDE {Path(board.silicon.linker_script).name}" in script


@pytest.mark.parametrize("name", APOLLO)
def test_apollo_boards_are_ambiq_silicon_behind_a_probe(name: str) -> None:
    board = get_board(name)
    assert (board.kind, board.runner, board.cpu_vendor) == ("silicon", "probe", "Ambiq")
    assert board.counter_units() == "cycles"
    assert board.silicon is not None and board.silicon.transport == "rtt"
    assert (TEMPLATES / "counters" / board.counter / "hpx_counter_impl.h").is_file()
    m55 = board.core == "cortex-m55"
    assert board.counter == ("pmu" if m55 else "dwt")
    assert (board.silicon.pmu_counters > 0) == m55
    assert len(board.regions_for("flash")) == 1
    assert len(board.regions_for("data")) == 1
    # Ambiq-licensed engines may run here, and not on the emulated boards
    catalog = load_registry().catalog
    assert any(e.startswith("helia-rt") for e in alternatives(catalog, board))
    assert not any(e.startswith("helia") for e in alternatives(catalog, all_boards()["qemu-m55"]))

"""Section sizes and symbols read with lief, checked against binutils on the same ELF."""

from __future__ import annotations

import subprocess

import pytest
from emulated_firmware import selftest_build

from hpx_core.firmware import section_sizes, symbol_inventory

pytestmark = pytest.mark.emulated


@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
def test_sizes_agree_with_arm_none_eabi_size(board: str) -> None:
    _, result = selftest_build(board)
    out = subprocess.run(
        ["arm-none-eabi-size", "-A", str(result.elf)], capture_output=True, text=True, check=True
    ).stdout
    listed = {
        parts[0]: int(parts[1])
        for line in out.splitlines()
        if len(parts := line.split()) == 3 and parts[0].startswith(".")
    }
    sizes = section_sizes(result.elf)
    assert sizes.text == listed[".text"] + listed.get(".ARM.exidx", 0)
    assert sizes.bss == listed[".bss"] + listed.get(".noinit", 0)  # RAM not loaded, not zeroed
    assert sizes.data == listed.get(".data", 0)
    assert result.sizes == sizes


def test_symbol_inventory_matches_nm() -> None:
    _, result = selftest_build("qemu-m55")
    nm = subprocess.run(
        ["arm-none-eabi-nm", "-S", "--defined-only", str(result.elf)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    functions = {
        p[3]: int(p[0], 16)
        for line in nm.splitlines()
        if len(p := line.split()) == 4 and p[2] in "Tt"
    }
    inventory = symbol_inventory(result.elf)
    for name in ("hpx_layer_begin", "hpx_layer_end", "hpx_engine_invoke", "main"):
        assert name in inventory.names()
        found = inventory.function_at(functions[name] + 2)
        assert found is not None and found.name == name

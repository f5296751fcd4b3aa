"""The qemu-m55 memory map seen as a board behind a debug probe, for the fake pyocd tests.

The firmware ELF is the real qemu-m55 selftest, so its code memory is what gets "flashed" and
its SRAM holds .bss and the RTT control block; the stream is a real wire capture of it.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.boards import SiliconSpec, get_board

RECORDED = (Path(__file__).resolve().parents[1] / "fixtures" / "wire"
            / "selftest-qemu-m55.bin").read_bytes()
_QEMU = get_board("qemu-m55")
BOARD = attrs.evolve(
    _QEMU,
    kind="silicon",
    runner="probe",
    memory=(attrs.evolve(_QEMU.regions_for("code")[0], use="flash"),
            _QEMU.regions_for("data")[0]),
    silicon=SiliconSpec("apollo", "apollo510", "-", "ap510nfa_cbr", "rtt", 4),
)
SRAM = BOARD.memory[1]
CB = SRAM.origin + 0x6510  # where a control block may sit (any aligned address works)
RING = SRAM.origin + 0x7000

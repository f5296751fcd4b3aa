"""Cortex-M55 timings the model takes from ARMScheduleM55.td, where a table row is easy to slip:
gather loads (M55Write2LSE3), VMOV immediates (MVE_VMOVi) and VMOV Qd, Qm (MVE_VORR)."""

from __future__ import annotations

from hpx_insight.classes import classify
from hpx_insight.cycles.cortex_m55 import m55_latency, m55_timing
from hpx_insight.disasm import Instruction


def _insn(mnemonic: str, operands: str) -> Instruction:
    return Instruction(0x1000, mnemonic, operands, classify(mnemonic, operands),
                       False, "f")


def test_gather_loads_take_two_cycles_and_contiguous_loads_one() -> None:
    assert m55_latency(_insn("vldrb.u32", "q1, [r0, q2]")) == 2
    assert m55_latency(_insn("vldrw.u32", "q1, [q2, #64]")) == 2
    assert m55_latency(_insn("vldrw.u32", "q1, [r0, #16]")) == 1


def test_vmov_immediates_take_two_cycles_and_vmvn_one() -> None:
    assert m55_latency(_insn("vmov.i8", "q0, #0x7f")) == 2
    assert m55_latency(_insn("vmov.i32", "q3, #0x0")) == 2
    assert m55_latency(_insn("vmvn.i32", "q0, #0x0")) == 1


def test_vmov_between_q_registers_is_on_the_integer_pipe() -> None:
    assert m55_timing(_insn("vmov", "q0, q1"), 4).pipe == "vint"
    assert m55_timing(_insn("vmul.i32", "q0, q1, q2"), 4).pipe == "vfp"

"""The selftest's calibration workload: assembly loops whose instruction counts follow from
their code alone.

Every layer runs ``movw r3, #lo; movt r3, #hi`` (2 instructions), then ``n`` iterations of its
body plus ``subs r3, r3, #1; bne`` (2 more per iteration). So a layer executes exactly
``2 + n * (len(body) + 2)`` instructions, whatever the compiler or board.

The ``stack`` layer also has a known stack depth: it lowers the stack pointer by
:data:`STACK_LAYER_BYTES` (or its own ``stack_bytes``) and writes a word there (the loop
counter, never the memory pass's paint), below ``hpx_engine_invoke``'s own two saved registers.
The memory pass must find it exactly :data:`STACK_LAYER_DEPTH` bytes below where the harness
called the engine. A layer of other ``stack_bytes`` runs the same three instructions, so a
workload that differs only there differs in stack and in nothing it counts.
"""

from __future__ import annotations

import attrs
import jinja2

from hpx_core.boards import Board
from hpx_core.contract import FirmwareContribution
from hpx_core.firmware.templates import templates_root

STACK_LAYER_BYTES = 2048
STACK_LAYER_DEPTH = STACK_LAYER_BYTES + 8  # hpx_engine_invoke's push {r4, lr}, then the layer's

# Loop bodies by kind; each line is one instruction.
BODIES: dict[str, tuple[str, ...]] = {
    "subs_bne": (),
    "nop4": ("nop", "nop", "nop", "nop"),
    "ldr_str": ("ldr r2, [sp]", "str r2, [sp]"),
    "fpu": ("vadd.f32 s0, s0, s1",),
    "mve": ("vadd.i32 q0, q0, q1",),
}


def stack_body(depth: int) -> tuple[str, ...]:
    """The stack layer's body: ``depth`` bytes below the stack pointer, one word written there
    (``depth`` must be a Thumb-2 immediate: up to 4,095, or a shifted byte)."""
    return (f"sub sp, sp, #{depth}", "str r3, [sp]", f"add sp, sp, #{depth}")


BODIES["stack"] = stack_body(STACK_LAYER_BYTES)
# Instructions hpx_engine_invoke adds around the loops in whole mode (push, cmp, beq, movs,
# pop), and hpx_measure_whole adds around the invoke beyond the calibrated pair (movs, bl, mov).
WHOLE_FRAMING = 5 + 3


@attrs.frozen
class CalibrationLayer:
    """One layer of known length."""

    name: str
    kind: str
    n: int
    stack_bytes: int = STACK_LAYER_BYTES  # the ``stack`` kind's depth below the stack pointer

    @property
    def body(self) -> tuple[str, ...]:
        return stack_body(self.stack_bytes) if self.kind == "stack" else BODIES[self.kind]

    @property
    def expected(self) -> int:
        """Instructions between the layer's begin and end, from the code alone."""
        return 2 + self.n * (len(self.body) + 2)


def calibration_layers(board: Board) -> tuple[CalibrationLayer, ...]:
    """The workload for ``board``: short and long loops, memory, FPU and (M55) MVE bodies, and a
    layer of known stack depth.

    The long layer spans more than 2**24 SysTick ticks, so it crosses counter wraps.
    """
    layers = [
        CalibrationLayer("tiny", "subs_bne", 10),
        CalibrationLayer("short", "subs_bne", 1_000),
        CalibrationLayer("nops", "nop4", 25_000),
        CalibrationLayer("memory", "ldr_str", 50_000),
        CalibrationLayer("float", "fpu", 100_000),
        CalibrationLayer("stack", "stack", 4),
    ]
    if "mve" in board.features:
        layers.append(CalibrationLayer("vector", "mve", 100_000))
    layers.append(CalibrationLayer("long", "subs_bne", 12_000_000))
    return tuple(layers)


def expected_whole(layers: tuple[CalibrationLayer, ...]) -> int:
    """The uninstrumented whole-inference count: every loop plus the fixed framing."""
    return sum(layer.expected for layer in layers) + WHOLE_FRAMING


def selftest_contribution(
    board: Board, layers: tuple[CalibrationLayer, ...] | None = None, *, gnu_as: bool = True
) -> FirmwareContribution:
    """The selftest engine's glue: its C file and the generated assembly and header, for
    ``layers`` (default: :func:`calibration_layers`).

    ``gnu_as`` (GCC) names the MVE architecture in the assembly; LLVM's assembler before 21
    rejects those directives, and the CPU flags already enable MVE for it.
    """
    root = templates_root() / "selftest"
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    layers = calibration_layers(board) if layers is None else layers
    values = {"layers": layers, "mve": "mve" in board.features, "gnu_as": gnu_as}
    return FirmwareContribution(
        files={
            "selftest_engine.c": (root / "selftest_engine.c").read_text("utf-8"),
            "selftest_layers.S": env.get_template("selftest_layers.S.j2").render(values),
            "selftest_layers.h": env.get_template("selftest_layers.h.j2").render(values),
        },
        sources=("selftest_engine.c", "selftest_layers.S"),
    )

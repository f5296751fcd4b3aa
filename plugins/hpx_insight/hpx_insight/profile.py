"""``instruction_profile``: an ELF's per-layer instruction profile on its emulated board.

One uncounted QEMU pass with hpx's plugin (after the timed run, so the timed counts cannot
move), the toolchain's disassembly and symbolizer, and the harness's own records from the same
pass: layer names, passes, calibration pairs, and the SysTick counts the profile must equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from hpx_core.sdk import RunError
from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import Measurement, measure, parse_capture
from hpx_core.sdk.results import Capture
from hpx_insight.binutils import binutils_for
from hpx_insight.caches import CacheSetup
from hpx_insight.disasm import Code, read_code
from hpx_insight.markers import find_markers
from hpx_insight.qemu_pass import NamedRange, board_ranges, run_instrumented
from hpx_insight.raw import RawProfile
from hpx_insight.static_access import StaticUse, add_static, initial_stack, static_uses
from hpx_insight.work import Layer, SlotPlan, Work, layer_work, whole_work


@attrs.frozen
class InstructionProfile:
    """Per-layer work of one ELF on one emulated board, and how it was had."""

    board: Board
    elf: Path
    toolchain: str
    layers: tuple[Layer, ...]
    whole: Work
    calibration_pair: float
    counter: Measurement  # the SysTick counts the same pass sent
    seconds: float
    raw: RawProfile
    ranges: tuple[NamedRange, ...]
    caches: CacheSetup | None = None

    @property
    def region_names(self) -> tuple[str, ...]:
        """The ranges memory use is counted in, and ``other`` for every other address."""
        return (*(r.name for r in self.ranges), "other")

    def counter_agrees(self) -> bool:
        """Every layer's instructions per pass, and every whole inference, equal SysTick's."""
        counted = {layer.index: layer.counts for layer in self.counter.layers}
        ours = {layer.index: layer.work.per_pass for layer in self.layers}
        wholes = self.whole.per_pass[-len(self.counter.whole):] if self.counter.whole else ()
        return counted == ours and wholes == self.counter.whole


def _capture(stream: bytes) -> Capture:
    capture = parse_capture(stream)
    end = capture.first("END")
    if end is None or end.number("status") != 0:
        raise RunError("the firmware did not end cleanly in the instruction-profile pass",
                       "its timed run is the one to look at: hpx profile shows why")
    return capture


def plan_of(capture: Capture, reserved: int) -> SlotPlan:
    cal = capture.first("CAL")
    return SlotPlan(reserved, capture.start.number("iterations"),
                    cal.number("repeats") if cal else 0)


def pass_inputs(elf: Path, board: Board, toolchain: str, buffers: Sequence[NamedRange] = ()
                ) -> tuple[Code, tuple[NamedRange, ...], dict[int, StaticUse]]:
    """What the pass needs before it runs: the code, the ranges, the accesses the code gives."""
    ranges = board_ranges(board, buffers)
    code = read_code(elf, board, binutils_for(toolchain))
    return code, ranges, static_uses(code, ranges, initial_stack(elf), find_markers(elf, board))


def instruction_profile(elf: Path, board: Board, toolchain: str = "arm-none-eabi-gcc", *,
                        buffers: Sequence[NamedRange] = (), timeout: float = 600.0,
                        cache: Path | None = None, caches: CacheSetup | None = None
                        ) -> InstructionProfile:
    """Run ``elf`` (built by hpx for ``board`` with ``toolchain``) once under the plugin;
    memory use is counted per buffer of ``buffers`` and per region of the board, and with
    ``caches`` the silicon board's cache misses too."""
    markers = find_markers(elf, board)
    code, ranges, uses = pass_inputs(elf, board, toolchain, buffers)
    done = run_instrumented(board, elf, ranges, static=sorted(uses), timeout=timeout,
                            cache=cache, caches=caches)
    raw = add_static(done.raw, uses)
    capture = _capture(done.stream)
    plan = plan_of(capture, markers.reserved)
    layers = layer_work(raw, code, plan, capture.layer_names())
    whole = whole_work(raw, code, plan)
    pair = sum(raw.slots[plan.reserved].windows[:plan.cal_repeats]) / plan.cal_repeats
    return InstructionProfile(board, elf, toolchain, layers, whole, pair,
                              measure(capture, board), done.seconds, raw, ranges, caches)

"""The instruction profile's keys in ``profiling`` and the flags of ``hpx profile`` that set
them: the pass's own, added to the core's by the pass (the core names none of them)."""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.sdk.passes import PassFlag


@attrs.frozen
class InsightOptions:
    """``profiling.instruction_profile``, ``estimate_for``, ``calibration`` and
    ``memory_calibration``."""

    instruction_profile: bool = False
    """Run the firmware once more under QEMU with hpx's instruction plugin (emulated boards):
    each layer's instructions by class, memory traffic per region and its hottest code."""
    estimate_for: str | None = None
    """A silicon board whose cycles to estimate from the instruction profile (implies it):
    ``apollo510_evb`` or ``apollo330mP_evb`` from qemu-m55, ``apollo4p_evb`` from qemu-m4;
    ``target.clock`` is then that board's performance mode."""
    calibration: Path | None = None
    """A calibration ``hpx calibrate`` wrote: the estimate's per-class costs for the board."""
    memory_calibration: Path | None = None
    """A memory calibration ``hpx calibrate --memory`` wrote: each region's miss costs
    measured on the board, instead of the model's."""

    @property
    def wanted(self) -> bool:
        return self.instruction_profile or self.estimate_for is not None

    @property
    def clock_board(self) -> str | None:
        """The board ``target.clock`` names a mode of when the run's board is emulated."""
        return self.estimate_for


FLAGS = (
    PassFlag("--instruction-profile", "instruction_profile",
             "Also profile each layer's instructions by class, memory traffic and hottest code "
             "(emulated boards; an uncounted pass).", "switch"),
    PassFlag("--estimate-for", "estimate_for",
             "Estimate cycles on this Apollo board from the instruction profile "
             "(apollo510_evb, apollo330mP_evb from qemu-m55; apollo4p_evb from qemu-m4)."),
    PassFlag("--calibration", "calibration",
             "A calibration hpx calibrate wrote, for --estimate-for.", "path"),
    PassFlag("--memory-calibration", "memory_calibration",
             "Memory costs hpx calibrate --memory measured on the board, for --estimate-for.",
             "path"),
)

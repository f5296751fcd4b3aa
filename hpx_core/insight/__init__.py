"""Instruction profiles on the emulated boards and cycle estimates for the Apollo boards.

:func:`instruction_profile` runs a built ELF once more under QEMU with hpx's TCG plugin and
returns each layer's instructions by class, memory use per region and hottest code, equal to
the harness's SysTick counts; :func:`profile_document` is its bundle file. The cycle model
(:mod:`hpx_core.insight.cycles`) turns a profile into estimated cycles for a silicon board.
"""

from hpx_core.insight.document import FILE_NAME, SCHEMA, profile_document
from hpx_core.insight.profile import InstructionProfile, instruction_profile

__all__ = ["FILE_NAME", "SCHEMA", "InstructionProfile", "instruction_profile",
           "profile_document"]

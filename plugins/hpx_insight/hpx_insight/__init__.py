"""Instruction profiles on the emulated boards and cycle estimates for the Apollo boards.

:func:`hpx_insight.profile.instruction_profile` runs a built ELF once more under QEMU with
hpx's TCG plugin and returns each layer's instructions by class, memory use per region and
hottest code, equal to the harness's SysTick counts; :func:`hpx_insight.document.
profile_document` is its bundle file. The cycle model (:mod:`hpx_insight.cycles`) turns a
profile into estimated cycles for a silicon board. The pass
(:mod:`hpx_insight.instruction_pass`) is what hpx loads; the other modules load only when a
run asks for a profile, so every other command pays for none of them.
"""

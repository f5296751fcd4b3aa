"""Which caches, power states and clock mode the part was in, read through the probe.

After a run the host reads the registers hpx's Apollo start-up
(firmware_templates/boards/apollo/apollo_init.c) writes, and compares each field with the value
that start-up sets, which is the value Ambiq's own firmware sets (nsx-ambiq-sdk's minimal
hardware initialisation and cache enable; the source is named with each field). The bundle's
``run.json`` keeps every field as read (``hardware``); a field that differs is an issue of the
run, so a measurement taken with a cache off, or in another clock mode, says so. The clock
mode wanted is the run's (``target.clock``): LP after reset, HP when the firmware switched to
it with the HAL (firmware_templates/boards/apollo/apollo_clock.c).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from hpx_core.contract import Json

SCB_CCR = 0xE000ED14
SCB_CPACR = 0xE000ED88
FPU_FPCCR = 0xE000EF34
DCB_DEMCR = 0xE000EDFC
MEMSYSCTL_PFCR = 0xE001E004  # Cortex-M55 (core_cm55.h)
PWRMODCTL_CPDLPSTATE = 0xE001E300  # Cortex-M55 (core_cm55.h)
AMBIQ_PWRCTRL = 0x40021000  # Apollo4 Plus and Apollo510 (their register references)


@attrs.frozen
class Field:
    """``name``: bits ``mask`` of the register at ``address`` should read ``want``, as the
    Ambiq ``source`` sets them."""

    name: str
    address: int
    mask: int
    want: int
    source: str

    def value(self, word: int) -> int:
        shift = (self.mask & -self.mask).bit_length() - 1
        return (word & self.mask) >> shift


_SYSTEMINIT = "system_apollo510.c SystemInit"
_MINIMAL = "nsx_platform_minimal_hw_init"
_CACHE5 = "nsx_cache_enable: am_hal_cachectrl_{}_enable"
_CACHE34 = "nsx_platform_minimal_hw_init: am_hal_cachectrl_config(&am_hal_cachectrl_defaults)"

CORTEX_M = (
    Field("fpu_access", SCB_CPACR, 0xF << 20, 0xF, f"{_MINIMAL}: am_hal_sysctrl_fpu_enable"),
    Field("fpu_lazy_stacking", FPU_FPCCR, 0x3 << 30, 0x3,
          f"{_MINIMAL}: am_hal_sysctrl_fpu_stacking_enable(true)"),
    Field("trace_enabled", DCB_DEMCR, 1 << 24, 1, "am_hal_debug_trace_enable (DEMCR.TRCENA)"),
)

CORTEX_M55 = (
    Field("icache", SCB_CCR, 1 << 17, 1, _CACHE5.format("icache")),
    Field("dcache", SCB_CCR, 1 << 16, 1, _CACHE5.format("dcache")),
    Field("loop_branch_cache", SCB_CCR, 1 << 19, 1, f"{_SYSTEMINIT} (SCB->CCR.LOB)"),
    Field("cache_ram_power", PWRMODCTL_CPDLPSTATE, 0x3 << 8, 0,
          f"{_MINIMAL}: am_hal_pwrctrl_pwrmodctl_cpdlp_config (RLPSTATE on)"),
    Field("epu_power", PWRMODCTL_CPDLPSTATE, 0x3 << 4, 0,
          f"{_MINIMAL}: am_hal_pwrctrl_pwrmodctl_cpdlp_config (ELPSTATE on)"),
    Field("core_power", PWRMODCTL_CPDLPSTATE, 0x3, 0,
          f"{_MINIMAL}: am_hal_pwrctrl_pwrmodctl_cpdlp_config (CLPSTATE on)"),
    Field("prefetch", MEMSYSCTL_PFCR, 1, 1, _CACHE5.format("dcache") + " (MEMSYSCTL->PFCR)"),
    Field("prefetch_min_lookahead", MEMSYSCTL_PFCR, 0x7 << 1, 4, "g_PrefetchConfig"),
    Field("prefetch_max_lookahead", MEMSYSCTL_PFCR, 0x7 << 4, 6, "g_PrefetchConfig"),
    Field("prefetch_max_outstanding", MEMSYSCTL_PFCR, 0x7 << 7, 6, "g_PrefetchConfig"),
)


def _pwrctrl(debug_bit: int) -> tuple[Field, ...]:
    return (
        Field("debug_domain_power", AMBIQ_PWRCTRL + 0x8, 1 << debug_bit, 1,
              "am_hal_debug_power: am_hal_pwrctrl_periph_enable(AM_HAL_PWRCTRL_PERIPH_DEBUG)"),
        Field(PERF_MODE, AMBIQ_PWRCTRL, 0x3 << 3, 1,
              "reset default, kept: LP, 96 MHz (PWRCTRL->MCUPERFREQ.MCUPERFSTATUS)"),
    )


PERF_MODE = "mcu_perf_mode"
HP_MODE = Field(PERF_MODE, AMBIQ_PWRCTRL, 0x3 << 3, 2,
                "apollo_clock.c: am_hal_pwrctrl_mcu_mode_select(AM_HAL_PWRCTRL_MCU_MODE_HIGH_"
                "PERFORMANCE), as nsx_platform_set_perf_mode(NSX_PERF_HIGH): HP "
                "(PWRCTRL->MCUPERFREQ.MCUPERFSTATUS)")


def fields_for(soc: str, clock: str = "lp") -> tuple[Field, ...]:
    """The fields read on ``soc`` with what the run's clock mode wants of each."""
    fields = SOC_FIELDS.get(soc, ())
    if clock != "hp":
        return fields
    return tuple(HP_MODE if field.name == PERF_MODE else field for field in fields)


def _cachecfg(base: int, config: int, defaults: str) -> tuple[Field, ...]:
    source = f"{_CACHE34} ({defaults}) and am_hal_cachectrl_enable"
    return (
        Field("flash_cache", base, 1, 1, source),
        Field("flash_cache_instructions", base, 1 << 8, 1, source),
        Field("flash_cache_data", base, 1 << 9, 1, source),
        Field("flash_cache_config", base, 0xF << 4, config, source),
    )


SOC_FIELDS: Mapping[str, tuple[Field, ...]] = {
    "apollo510": (*CORTEX_M, *CORTEX_M55, *_pwrctrl(26)),
    # The pinned SDK has no register map of the Apollo330P (its CMSIS header is not public in
    # it): only the Cortex-M55's own registers are read there.
    "apollo330P": (*CORTEX_M, *CORTEX_M55),
    "apollo4p": (*CORTEX_M, *_cachecfg(0x4800_0000, 0xE, "1 way, 128 B lines, 4096 entries"),
                 *_pwrctrl(24)),
    "apollo3p": (*CORTEX_M, *_cachecfg(0x4001_8000, 0x8, "1 way, 128 B lines, 1024 entries"),
                 Field("core_clock_divider", 0x4000_4018, 1, 0,
                       "system_apollo3p.c SystemInit: CLKGEN->CCTRL.CORESEL = 0 (48 MHz)")),
}


@attrs.frozen
class HardwareState:
    """Every field as read (None: the read failed) and the differences as issues."""

    fields: dict[str, int | None]
    issues: tuple[str, ...]

    def as_json(self) -> dict[str, Json]:
        return {name: value for name, value in self.fields.items()}


def read_state(target: Any, soc: str, errors: tuple[type[Exception], ...],
               clock: str = "lp") -> HardwareState:
    """The fields of ``soc`` read from ``target`` (pyocd's ``read32``), judged against the run's
    clock mode; a register the probe cannot read is recorded as unread, never guessed."""
    words: dict[int, int | None] = {}
    fields: dict[str, int | None] = {}
    issues: list[str] = []
    for field in fields_for(soc, clock):
        if field.address not in words:
            try:
                words[field.address] = int(target.read32(field.address))
            except errors:
                words[field.address] = None
        word = words[field.address]
        fields[field.name] = None if word is None else field.value(word)
        if word is None:
            issues.append(f"{field.name}: register {field.address:#010x} could not be read")
        elif fields[field.name] != field.want:
            issues.append(f"{field.name} reads {fields[field.name]}, Ambiq's start-up sets "
                          f"{field.want} ({field.source}): counts were not taken as Ambiq's "
                          "firmware runs")
    return HardwareState(fields, tuple(issues))

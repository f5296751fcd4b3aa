/*
 * The hardware initialisation Ambiq's own firmware does before it measures, per SoC.
 *
 * hpx follows the pinned nsx-ambiq-sdk: its GCC start-up (nsx-core/src/<soc>/gcc/startup_gcc.c),
 * the CMSIS SystemInit that start-up calls on the Apollo5 family (system_apollo510.c,
 * system_apollo330P.c), nsx_minimal_hw_init (nsx-core/src/<soc>/nsx_system_platform.c) and
 * nsx_cache_enable (nsx-core/src/nsx_cache.c), and the AmbiqSuite HAL functions those call
 * (am_hal_cachectrl.c, am_hal_pwrctrl.c, am_hal_sysctrl.c, am_hal_debug.c of each SoC). Those
 * sources are BSD-3-Clause; this file follows what they write, register by register, and
 * names the function each write comes from. It uses no HAL: the few Ambiq registers it needs
 * are defined below from the SoC's register reference.
 *
 * Not here: the performance-mode switch and, on the Apollo5 family, am_hal_spotmgr_init, whose
 * settings come from the part's revision and trim data that only the HAL reads. In the LP mode
 * (the default) the core keeps the clock it has after reset; in the HP mode (`--clock hp`)
 * apollo_clock.c calls the HAL's own functions after this file's writes. The host reads the
 * mode back after every run (hpx_core/probe/hwstate.py) and the bundle records it.
 */
#include <stdint.h>

#include "board.h"
#include "hpx_apollo_cmsis.h"

void hpx_apollo_init(void);

/* Architectural on every Apollo core (Cortex-M4F and M55): am_hal_sysctrl_fpu_enable and
 * am_hal_sysctrl_fpu_stacking_enable(true), which nsx_minimal_hw_init calls on every SoC. */
static void fpu_on(void) {
    SCB->CPACR |= 0xFu << 20; /* CP10/CP11 full access (am_hal_sysctrl_fpu_enable) */
    __DSB();
    __ISB();
    /* lazy stacking: ASPEN and LSPEN (am_hal_sysctrl_fpu_stacking_enable, bLazy = true) */
    FPU->FPCCR |= FPU_FPCCR_ASPEN_Msk | FPU_FPCCR_LSPEN_Msk;
}

/* The Ambiq debug power domain, before the counter backends set DEMCR.TRCENA: am_hal_debug_enable
 * calls am_hal_debug_power(true) -> am_hal_pwrctrl_periph_enable(AM_HAL_PWRCTRL_PERIPH_DEBUG),
 * which sets PWRCTRL->DEVPWREN.PWRENDBG and waits for DEVPWRSTATUS.PWRSTDBG. The register
 * addresses are the Apollo510's and Apollo4 Plus's PWRCTRL (base 0x40021000, DEVPWREN at +4,
 * DEVPWRSTATUS at +8; the bit is 26 on the Apollo510, 24 on the Apollo4 Plus). */
#if HPX_SOC_APOLLO510 || HPX_SOC_APOLLO4P
#define AM_PWRCTRL_DEVPWREN (*(volatile uint32_t *)0x40021004u)
#define AM_PWRCTRL_DEVPWRSTATUS (*(volatile uint32_t *)0x40021008u)
#if HPX_SOC_APOLLO510
#define AM_PWRCTRL_DBG (1u << 26)
#else
#define AM_PWRCTRL_DBG (1u << 24)
#endif
#define AM_DEBUG_POWER_POLLS 100000u /* the HAL waits AM_HAL_PWRCTRL_MAX_WAIT_US */

static void debug_domain_on(void) {
    if (AM_PWRCTRL_DEVPWRSTATUS & AM_PWRCTRL_DBG) {
        return; /* am_hal_debug_power: already powered, left as it is */
    }
    AM_PWRCTRL_DEVPWREN |= AM_PWRCTRL_DBG; /* am_hal_pwrctrl_periph_enable(..._DEBUG) */
    for (uint32_t i = 0; i < AM_DEBUG_POWER_POLLS; i++) {
        if (AM_PWRCTRL_DEVPWRSTATUS & AM_PWRCTRL_DBG) {
            return;
        }
    }
    /* not powered: the counter backend's boot check then fails with its own code */
}
#endif

#if HPX_CORE_M55
/* Apollo510 and Apollo330P: SystemInit, nsx_minimal_hw_init, nsx_cache_enable. The registers
 * are the Cortex-M55's own (core_cm55.h of the pinned SDK). */
static void apollo5_init(void) {
    /* SystemInit: CPDLPSTATE.ELPSTATE (0b11, off, after a cold reset) cleared, then set to
     * "on, clock off" (0b01) so the FPU/MVE unit is not switched on at its first use */
    PWRMODCTL->CPDLPSTATE &= ~PWRMODCTL_CPDLPSTATE_ELPSTATE_Msk;
    PWRMODCTL->CPDLPSTATE |= 1u << PWRMODCTL_CPDLPSTATE_ELPSTATE_Pos;
    /* SystemInit: the loop and branch info cache (SCB->CCR.LOB) */
    SCB->CCR |= SCB_CCR_LOB_Msk;
    __DSB();
    __ISB();
    /* nsx_minimal_hw_init then turns every domain on, the caches' RAM (RLP), the FPU/MVE unit
     * (ELP) and the core (CLP): am_hal_pwrctrl_pwrmodctl_cpdlp_config({RLP_ON, ELP_ON,
     * CLP_ON}) writes 0 */
    PWRMODCTL->CPDLPSTATE = (0u << PWRMODCTL_CPDLPSTATE_RLPSTATE_Pos) |
                            (0u << PWRMODCTL_CPDLPSTATE_ELPSTATE_Pos) |
                            (0u << PWRMODCTL_CPDLPSTATE_CLPSTATE_Pos);
    fpu_on();
    /* nsx_cache_enable -> am_hal_cachectrl_icache_enable: only with the cache RAM powered
     * (CPDLPSTATE.RLPSTATE on, just set), then the CMSIS call */
    SCB_EnableICache();
    /* am_hal_cachectrl_dcache_enable(true): the prefetcher as g_PrefetchConfig has it
     * (6 outstanding transactions, lookahead 4..6, enabled), then the D-cache, cleaned */
    MEMSYSCTL->PFCR = (6u << MEMSYSCTL_PFCR_MAX_OS_Pos) | (6u << MEMSYSCTL_PFCR_MAX_LA_Pos) |
                      (4u << MEMSYSCTL_PFCR_MIN_LA_Pos) | MEMSYSCTL_PFCR_ENABLE_Msk;
    SCB_EnableDCache();
    SCB_CleanDCache();
}
#endif

#if HPX_SOC_APOLLO4P || HPX_SOC_APOLLO3P
/* Apollo4 Plus and Apollo3 Blue Plus: nsx_minimal_hw_init's
 * am_hal_cachectrl_config(&am_hal_cachectrl_defaults) and am_hal_cachectrl_enable(), the
 * flash (MRAM) cache. Apollo4 Plus: CPU->CACHECFG at 0x48000000, CACHECTRL at 0x48000008;
 * Apollo3 Blue Plus: CACHECTRL->CACHECFG at 0x40018000 (no separate invalidate). Same fields:
 * ENABLE bit 0, LRU bit 1, CONFIG bits 7:4, IENABLE bit 8, DENABLE bit 9, CLKGATE bit 10,
 * LS bit 11, DATACLKGATE bit 20, ENABLEMONITOR bit 24. */
#if HPX_SOC_APOLLO4P
#define AM_CACHECFG (*(volatile uint32_t *)0x48000000u)
#define AM_CACHECTRL (*(volatile uint32_t *)0x48000008u)
#define AM_CACHE_DEFAULT_CONFIG 0xEu /* AM_HAL_CACHECTRL_DESCR_1WAY_128B_4096E */
#else
#define AM_CACHECFG (*(volatile uint32_t *)0x40018000u)
#define AM_CACHE_DEFAULT_CONFIG 0x8u /* AM_HAL_CACHECTRL_DESCR_1WAY_128B_1024E */
#endif
#define AM_CACHECFG_ENABLE (1u << 0)
#define AM_CACHECFG_IENABLE (1u << 8)
#define AM_CACHECFG_DENABLE (1u << 9)
#define AM_CACHECFG_CLKGATE (1u << 10)
#define AM_CACHECFG_DATACLKGATE (1u << 20)

static void flash_cache_on(void) {
    /* am_hal_cachectrl_config: instruction and data caching off before reconfiguring... */
    AM_CACHECFG &= ~(AM_CACHECFG_IENABLE | AM_CACHECFG_DENABLE);
    /* ...then the defaults: disabled, tag and data clock gating on, light sleep off, monitor
     * off, LRR replacement (bLRU 0), the default geometry, instruction and data caching
     * (AM_HAL_CACHECTRL_CONFIG_MODE_INSTR_DATA) */
    AM_CACHECFG = AM_CACHECFG_CLKGATE | AM_CACHECFG_DATACLKGATE | (AM_CACHE_DEFAULT_CONFIG << 4) |
                  AM_CACHECFG_IENABLE | AM_CACHECFG_DENABLE;
    /* am_hal_cachectrl_enable: ENABLE (and on the Apollo4 Plus, CACHECTRL.INVALIDATE) */
    AM_CACHECFG |= AM_CACHECFG_ENABLE;
#if HPX_SOC_APOLLO4P
    AM_CACHECTRL = 1u;
#endif
}
#endif

void hpx_apollo_init(void) {
#if HPX_CORE_M55
    apollo5_init();
#else
    fpu_on();
    flash_cache_on();
#endif
#if HPX_SOC_APOLLO510 || HPX_SOC_APOLLO4P
    debug_domain_on();
#endif
}

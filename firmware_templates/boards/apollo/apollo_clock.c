/*
 * The high-performance clock mode (`target.clock: hp`), switched as Ambiq's own firmware does
 * it, with the AmbiqSuite HAL's own functions: this unit is compiled, and the SDK's prebuilt
 * HAL (libam_hal.a of the SoC, the library nsx links by default) linked, only when the mode is
 * asked for.
 *
 * The pinned nsx-ambiq-sdk does it in two steps (BSD-3-Clause sources):
 *   - nsx_platform_minimal_hw_init (nsx-core/src/apollo510/nsx_system_platform.c, which covers
 *     the Apollo510 and Apollo330P) calls am_hal_spotmgr_init() after the CPDLP power states
 *     and before any mode change ("SpotManager must be initialized before profile_set"); its
 *     settings come from the part's revision and trim data, which only the HAL reads;
 *   - nsx_platform_set_perf_mode(NSX_PERF_HIGH) calls am_hal_pwrctrl_mcu_mode_select with
 *     AM_HAL_PWRCTRL_MCU_MODE_HIGH_PERFORMANCE (Apollo510: 250 MHz; Apollo4 Plus,
 *     nsx-core/src/apollo4p/nsx_system_platform.c: 192 MHz) or ..._HIGH_PERFORMANCE2 on the
 *     Apollo330P (250 MHz).
 *
 * The HAL's headers need the SoC's generated register map, which hpx does not fetch, so the
 * two functions are declared here with the values of am_hal_pwrctrl_mcu_mode_e
 * (PWRCTRL->MCUPERFREQ.MCUPERFSTATUS: LP 1, HP 2 on the Apollo510 and Apollo4 Plus; HP1 2,
 * HP2 3 on the Apollo330P), the values the HAL's own mode check accepts.
 */
#include <stdint.h>

#include "board.h"

void hpx_apollo_clock(void);

uint32_t am_hal_pwrctrl_mcu_mode_select(uint32_t mode); /* am_hal_pwrctrl.h */

#if HPX_SOC_APOLLO330P
#define HPX_MCU_MODE_HP 3u /* AM_HAL_PWRCTRL_MCU_MODE_HIGH_PERFORMANCE2 */
#else
#define HPX_MCU_MODE_HP 2u /* AM_HAL_PWRCTRL_MCU_MODE_HIGH_PERFORMANCE */
#endif

#if HPX_CORE_M55
uint32_t am_hal_spotmgr_init(void); /* am_hal_spotmgr.h */
#endif

/* set when a HAL call failed: the counts are then not in the mode asked for, and the host's
 * read-back of PWRCTRL->MCUPERFREQ says so */
volatile uint32_t hpx_clock_status;

void hpx_apollo_clock(void) {
#if HPX_CORE_M55
    hpx_clock_status = am_hal_spotmgr_init();
#endif
    hpx_clock_status |= am_hal_pwrctrl_mcu_mode_select(HPX_MCU_MODE_HP);
}

/*
 * The power pass's pads on an Apollo board (hpx_power.h): the two GPIOs the pinned SDK's own
 * power monitor drives (modules/nsx-power/src/nsx_power_monitor.c: am_hal_gpio_pinconfig with
 * am_hal_gpio_pincfg_output, then am_hal_gpio_state_write per bit), numbered per board in
 * hpx's board data (power_gpios -> HPX_POWER_GPIO0/1). This unit is compiled, and the SoC's
 * prebuilt HAL linked, only in a power build.
 *
 * The HAL's headers need the SoC's generated register map, which hpx does not fetch, so the
 * functions are declared here: am_hal_gpio_pincfg_t is a one-word union on the Apollo4 and
 * Apollo5 families (passed in a core register, as a uint32_t is, under the AAPCS) and
 * am_hal_gpio_write_type_e numbers AM_HAL_GPIO_OUTPUT_CLEAR 0 and AM_HAL_GPIO_OUTPUT_SET 1.
 */
#include <stdint.h>

#include "hpx_power.h"

uint32_t am_hal_gpio_pinconfig(uint32_t pin, uint32_t config); /* am_hal_gpio.h */
uint32_t am_hal_gpio_state_write(uint32_t pin, uint32_t write);
extern const uint32_t am_hal_gpio_pincfg_output;

/* set when a HAL call failed: the pads may not show the windows (read back by the host) */
volatile uint32_t hpx_power_status;

void hpx_platform_power_state(uint32_t state) {
    static int configured;
    if (!configured) {
        hpx_power_status |= am_hal_gpio_pinconfig(HPX_POWER_GPIO0, am_hal_gpio_pincfg_output);
        hpx_power_status |= am_hal_gpio_pinconfig(HPX_POWER_GPIO1, am_hal_gpio_pincfg_output);
        configured = 1;
    }
    hpx_power_status |= am_hal_gpio_state_write(HPX_POWER_GPIO0, state & 1u);
    hpx_power_status |= am_hal_gpio_state_write(HPX_POWER_GPIO1, (state >> 1) & 1u);
}

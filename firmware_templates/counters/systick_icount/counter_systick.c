/* SysTick counter backend for the emulated boards (see hpx_counter_impl.h). */
#include <stdint.h>

#include "hpx_counter_backend.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CSR_ENABLE 0x1u
#define SYST_CSR_TICKINT 0x2u
#define SYST_CSR_CLKSOURCE 0x4u /* processor clock */

volatile uint32_t hpx_systick_wraps;

/*
 * Exactly 5 instructions, written in assembly so no compiler changes that: each wrap adds them
 * to whatever is being measured, and hpx_counter_read subtracts them again
 * (HPX_COUNTER_WRAP_COST_Q16, computed by the host from the board's tick/instruction ratio).
 */
__attribute__((naked)) void SysTick_Handler(void) {
    __asm__ volatile(
        "ldr r0, =hpx_systick_wraps\n\t"
        "ldr r1, [r0]\n\t"
        "adds r1, r1, #1\n\t"
        "str r1, [r0]\n\t"
        "bx lr\n\t"
        ".ltorg\n\t");
}

int hpx_counter_init(void) {
    SYST_CSR = 0u;
    SYST_RVR = HPX_SYSTICK_RELOAD;
    HPX_SYST_CVR = 0u;
    hpx_systick_wraps = 0u;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
    /* The current value reads 0 until the first reload: wait for it before any sample. */
    for (uint32_t spin = 0; HPX_SYST_CVR == 0u; spin++) {
        if (spin > 1000000u) {
            return 1;
        }
    }
    return 0;
}

const char *hpx_counter_name(void) {
    return "systick_icount";
}

/* Spans leave the device converted (hpx_counter_span): exact instructions under icount. */
const char *hpx_counter_units(void) {
    return "instructions";
}

/*
 * SysTick on the processor clock, extended to 64 bits by counting 24-bit wraps in the SysTick
 * interrupt. Under QEMU -icount every instruction advances virtual time by a fixed step, so a
 * span of ticks is a whole number of instructions give or take two ticks (the read's floor and
 * the wrap correction's): with more than four ticks per instruction, rounding the span gives
 * the instructions exactly (hpx_core/boards/icount.py chooses the icount shift and the ratio).
 */
#ifndef HPX_COUNTER_IMPL_H
#define HPX_COUNTER_IMPL_H

#include <stdint.h>

#define HPX_SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define HPX_SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define HPX_ICSR_PENDSTSET (1u << 26)
#define HPX_SYSTICK_RELOAD 0x00FFFFFFu

#include "hpx_config.h"

#ifndef HPX_COUNTER_WRAP_COST_Q16
#define HPX_COUNTER_WRAP_COST_Q16 0u
#endif
#ifndef HPX_COUNTER_SPAN_MUL /* instructions per tick = MUL / 2^SHIFT */
#define HPX_COUNTER_SPAN_MUL 1u
#define HPX_COUNTER_SPAN_SHIFT 0u
#endif

extern volatile uint32_t hpx_systick_wraps;

/*
 * Elapsed ticks since start, less the ticks the wrap handler itself took (its instructions in
 * ticks, 16.16 fixed point, from the host). A wrap that has happened but whose interrupt is still pending is
 * counted from PENDSTSET; the loop retries when a wrap lands between the reads.
 */
static inline __attribute__((always_inline)) uint64_t hpx_counter_read(void) {
    uint32_t wraps;
    uint32_t pending;
    uint32_t value;
    do {
        wraps = hpx_systick_wraps;
        pending = HPX_SCB_ICSR & HPX_ICSR_PENDSTSET;
        value = HPX_SYST_CVR;
    } while (wraps != hpx_systick_wraps || pending != (HPX_SCB_ICSR & HPX_ICSR_PENDSTSET));
    if (pending) {
        wraps++;
    }
    return ((uint64_t)wraps << 24) + (uint64_t)(HPX_SYSTICK_RELOAD - value) -
           (((uint64_t)wraps * HPX_COUNTER_WRAP_COST_Q16) >> 16);
}

/* Instructions between two reads: the ticks times MUL / 2^SHIFT, rounded to the nearest. */
#define HPX_COUNTER_HAS_SPAN 1
static inline uint64_t hpx_counter_span(uint64_t start, uint64_t end) {
    uint64_t scaled = (end - start) * (uint64_t)HPX_COUNTER_SPAN_MUL;
#if HPX_COUNTER_SPAN_SHIFT > 0
    scaled += 1ull << (HPX_COUNTER_SPAN_SHIFT - 1u);
#endif
    return scaled >> HPX_COUNTER_SPAN_SHIFT;
}

#endif

/*
 * DWT cycle counter (Cortex-M4F Apollo boards; also present on the M55). CYCCNT is 32 bits
 * and has no overflow flag, so reads extend it to 64 bits against the previous read: one wrap
 * between two reads (2**32 cycles, about 45 s at 96 MHz) is counted, more cannot be seen.
 */
#ifndef HPX_COUNTER_IMPL_H
#define HPX_COUNTER_IMPL_H

#include <stdint.h>

#define HPX_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

extern uint32_t hpx_dwt_last;
extern uint64_t hpx_dwt_high;

static inline __attribute__((always_inline)) uint64_t hpx_counter_read(void) {
    uint32_t now = HPX_DWT_CYCCNT;
    if (now < hpx_dwt_last) {
        hpx_dwt_high += 1ull << 32;
    }
    hpx_dwt_last = now;
    return hpx_dwt_high + now;
}

#endif

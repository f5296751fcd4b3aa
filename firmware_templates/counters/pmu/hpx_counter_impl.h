/*
 * Armv8.1-M PMU backend (Cortex-M55 Apollo boards). The harness's counter is the PMU cycle
 * counter PMU_CCNTR: 32 bits, extended to 64 by its overflow flag (PMU_OVSSET bit 31), which
 * catches every wrap however long the interval. Event counters (16 bits each) are chained in
 * pairs into 32-bit counters, set up by counter_pmu.c from HPX_PMU_EVENTS.
 */
#ifndef HPX_COUNTER_IMPL_H
#define HPX_COUNTER_IMPL_H

#include <stdint.h>

#define HPX_PMU_CCNTR (*(volatile uint32_t *)0xE000307Cu)
#define HPX_PMU_OVSSET (*(volatile uint32_t *)0xE0003CC0u)
#define HPX_PMU_OVSCLR (*(volatile uint32_t *)0xE0003C80u)
#define HPX_PMU_CYCLE_BIT (1u << 31)

extern uint64_t hpx_pmu_cycle_high;

static inline __attribute__((always_inline)) uint64_t hpx_counter_read(void) {
    uint32_t now = HPX_PMU_CCNTR;
    if (HPX_PMU_OVSSET & HPX_PMU_CYCLE_BIT) {
        /* a wrap happened before or just after that read: count it and read again */
        HPX_PMU_OVSCLR = HPX_PMU_CYCLE_BIT;
        hpx_pmu_cycle_high += 1ull << 32;
        now = HPX_PMU_CCNTR;
    }
    return hpx_pmu_cycle_high + now;
}

#define HPX_COUNTER_HAS_EVENTS 1
/* Event slots come from hpx_config.h (HPX_MAX_EVENTS: this pass's events, at most four, the
 * PMU's eight counters chained in pairs); without events the harness compiles none. */

#endif

/*
 * Armv8.1-M PMU backend. HPX_PMU_EVENTS lists the events of this pass as CMSIS names
 * (ARM_PMU_INST_RETIRED, ...; the host generates it from --counters and its pass plan). Each
 * event takes an even counter, its odd neighbour counts CHAIN, so every event is 32 bits.
 * The boot check: TRCENA must read back (am_hal_debug_trace_enable waits for it; the start-up
 * has powered the debug domain first), the PMU must have enough counters, each event type
 * must read back as written (a PMU that does not implement an event ignores the write), the
 * enables must stick, and the cycle counter must advance across a loop of known length.
 */
#include <stdint.h>

#include "hpx_apollo_cmsis.h"
#include "hpx_config.h"
#include "hpx_counter_backend.h"
#include "hpx_counter_check.h"

#ifndef HPX_PMU_EVENTS
#define HPX_PMU_EVENTS
#endif

/* The host reads from the ELF which events this firmware counts: the table is read through a
 * volatile pointer below, so the compiler cannot fold it away and the linker keeps it. */
const uint16_t hpx_pmu_events[] = {HPX_PMU_EVENTS 0xFFFFu};
#define PMU_EVENTS (sizeof(hpx_pmu_events) / sizeof(hpx_pmu_events[0]) - 1u)

uint64_t hpx_pmu_cycle_high;

static uint32_t pair_mask(void) {
    uint32_t mask = 0u;
    for (uint32_t k = 0; k < PMU_EVENTS; k++) {
        mask |= 3u << (2u * k);
    }
    return mask;
}

/* The event field of PMU_EVTYPERn (bits 15:0; the filter bits above stay 0). */
#define EVTYPE_EVENT 0xFFFFu

static int set_event_types(void) {
    const volatile uint16_t *events = hpx_pmu_events;
    for (uint32_t k = 0; k < PMU_EVENTS; k++) {
        PMU->EVTYPER[2u * k] = events[k];
        PMU->EVTYPER[2u * k + 1u] = ARM_PMU_CHAIN;
        if ((PMU->EVTYPER[2u * k] & EVTYPE_EVENT) != events[k] ||
            (PMU->EVTYPER[2u * k + 1u] & EVTYPE_EVENT) != ARM_PMU_CHAIN) {
            return HPX_COUNTER_ERR_EVTYPE;
        }
    }
    return 0;
}

int hpx_counter_init(void) {
    DCB->DEMCR |= DCB_DEMCR_TRCENA_Msk;
    if (!(DCB->DEMCR & DCB_DEMCR_TRCENA_Msk)) {
        return HPX_COUNTER_ERR_ENABLE;
    }
    uint32_t counters = (PMU->TYPE & PMU_TYPE_NUM_CNTS_Msk) + 1u;
    if (PMU_EVENTS > HPX_MAX_EVENTS || counters < 2u * PMU_EVENTS) {
        return HPX_COUNTER_ERR_EVENTS;
    }
    PMU->CNTENCLR = 0xFFFFFFFFu;
    PMU->OVSCLR = 0xFFFFFFFFu;
    int types = set_event_types();
    if (types != 0) {
        return types;
    }
    PMU->CTRL = PMU_CTRL_ENABLE_Msk | PMU_CTRL_EVENTCNT_RESET_Msk | PMU_CTRL_CYCCNT_RESET_Msk;
    PMU->CNTENSET = PMU_CNTENSET_CCNTR_ENABLE_Msk | pair_mask();
    if (!(PMU->CTRL & PMU_CTRL_ENABLE_Msk) ||
        (PMU->CNTENSET & (PMU_CNTENSET_CCNTR_ENABLE_Msk | pair_mask())) !=
            (PMU_CNTENSET_CCNTR_ENABLE_Msk | pair_mask())) {
        return HPX_COUNTER_ERR_ENABLE;
    }
    hpx_pmu_cycle_high = 0u;
    return hpx_counter_check_advances();
}

uint32_t hpx_counter_event_read(uint32_t k, int *overflow) {
    uint32_t high_bit = 1u << (2u * k + 1u);
    uint32_t hi;
    uint32_t lo;
    do {
        hi = PMU->EVCNTR[2u * k + 1u] & 0xFFFFu;
        lo = PMU->EVCNTR[2u * k] & 0xFFFFu;
    } while (hi != (PMU->EVCNTR[2u * k + 1u] & 0xFFFFu));
    *overflow = (PMU->OVSSET & high_bit) != 0u;
    return (hi << 16) | lo;
}

uint32_t hpx_counter_event_count(void) {
    return PMU_EVENTS;
}

uint32_t hpx_counter_event_number(uint32_t k) {
    const volatile uint16_t *events = hpx_pmu_events;
    return k < PMU_EVENTS ? events[k] : 0xFFFFu;
}

void hpx_counter_event_clear_overflow(void) {
    PMU->OVSCLR = pair_mask() & 0xAAAAAAAAu; /* the high (odd) counter of every pair */
}

const char *hpx_counter_name(void) {
    return "pmu";
}

const char *hpx_counter_units(void) {
    return "cycles";
}

/* The boot check every silicon counter backend runs before the harness trusts its counts. */
#ifndef HPX_COUNTER_CHECK_H
#define HPX_COUNTER_CHECK_H

#include <stdint.h>

#include "hpx_counter_backend.h"

/* Codes a backend's hpx_counter_init returns (sent as the ERROR record's code). */
#define HPX_COUNTER_ERR_ABSENT 10   /* the counter is not implemented */
#define HPX_COUNTER_ERR_ENABLE 11   /* the enable bit did not stick */
#define HPX_COUNTER_ERR_STUCK 12    /* no advance across the check loop */
#define HPX_COUNTER_ERR_TOO_FAST 13 /* fewer counts than the loop's instructions */
#define HPX_COUNTER_ERR_EVENTS 14   /* the PMU has fewer event counters than asked for */
#define HPX_COUNTER_ERR_EVTYPE 15   /* an event type did not read back as written */

#define HPX_CHECK_LOOPS 1000u

/* 1000 iterations of subs+bne (2 instructions each) take at least 1000 cycles on any core
 * (one branch per cycle at most); a counter reading less than that is not counting cycles. */
static inline int hpx_counter_check_advances(void) {
    uint64_t before = hpx_counter_read();
    uint32_t n = HPX_CHECK_LOOPS;
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
    uint64_t after = hpx_counter_read();
    if (after == before) {
        return HPX_COUNTER_ERR_STUCK;
    }
    if (after - before < HPX_CHECK_LOOPS) {
        return HPX_COUNTER_ERR_TOO_FAST;
    }
    return 0;
}

#endif

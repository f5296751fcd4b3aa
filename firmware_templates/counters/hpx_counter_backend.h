/*
 * The seam between the harness and a counter backend. A backend folder under counters/
 * provides hpx_counter_impl.h (an inline hpx_counter_read, so the read costs the same at every
 * call site) and a C file implementing the functions below. The emulated boards use
 * systick_icount; silicon boards add DWT or PMU backends beside it.
 */
#ifndef HPX_COUNTER_BACKEND_H
#define HPX_COUNTER_BACKEND_H

#include <stdint.h>

#include "hpx_config.h" /* HPX_MAX_EVENTS when this pass counts events */

/* Start the counter; returns 0 when it runs. */
int hpx_counter_init(void);
/* Backend name and units, sent in the start record ("systick_icount", "ticks"). */
const char *hpx_counter_name(void);
const char *hpx_counter_units(void);

#include "hpx_counter_impl.h" /* static inline uint64_t hpx_counter_read(void) */

/* What a layer adds between two reads, in the backend's units. The harness calls it after the
 * end read, outside the measured span; a backend whose reads are not in its units (SysTick
 * ticks) defines HPX_COUNTER_HAS_SPAN and its own conversion. */
#ifndef HPX_COUNTER_HAS_SPAN
static inline uint64_t hpx_counter_span(uint64_t start, uint64_t end) {
    return end - start;
}
#endif

/* Event counters beside the main counter (the Armv8.1-M PMU's). When a pass counts events,
 * hpx_config.h sets HPX_MAX_EVENTS to their number (the slots compiled into the harness) and the
 * backend implements the functions below; the harness reads them around every layer. With no
 * events it stays 0 and no event code or table is compiled. */
#ifndef HPX_COUNTER_HAS_EVENTS /* the backend counts no events: a requested pass is ignored */
#undef HPX_MAX_EVENTS
#endif
#ifndef HPX_MAX_EVENTS
#define HPX_MAX_EVENTS 0
#endif
#if HPX_MAX_EVENTS > 0
/* Events this build counts (at most HPX_MAX_EVENTS) and the Arm event number of each. */
uint32_t hpx_counter_event_count(void);
uint32_t hpx_counter_event_number(uint32_t k);
/* Event k as a 32-bit value; *overflow is set when it wrapped since the last clear. */
uint32_t hpx_counter_event_read(uint32_t k, int *overflow);
void hpx_counter_event_clear_overflow(void);
#endif

#endif

/*
 * The seam between the harness and a counter backend. A backend folder under counters/
 * provides hpx_counter_impl.h (an inline hpx_counter_read, so the read costs the same at every
 * call site) and a C file implementing the functions below. The emulated boards use
 * systick_icount; silicon boards add DWT or PMU backends beside it.
 */
#ifndef HPX_COUNTER_BACKEND_H
#define HPX_COUNTER_BACKEND_H

#include <stdint.h>

/* Start the counter; returns 0 when it runs. */
int hpx_counter_init(void);
/* Backend name and units, sent in the start record ("systick_icount", "ticks"). */
const char *hpx_counter_name(void);
const char *hpx_counter_units(void);

#include "hpx_counter_impl.h" /* static inline uint64_t hpx_counter_read(void) */

#endif

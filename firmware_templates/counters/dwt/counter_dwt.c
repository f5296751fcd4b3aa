/*
 * DWT cycle counter backend. Before the harness trusts it: the DWT must implement CYCCNT,
 * the enable must stick, and the count must advance across a loop of known length.
 */
#include <stdint.h>

#include "hpx_counter_backend.h"
#include "hpx_counter_check.h"

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CTRL_NOCYCCNT (1u << 25)
#define DWT_CTRL_CYCCNTENA 1u
#define DWT_LAR (*(volatile uint32_t *)0xE0001FB0u)

uint32_t hpx_dwt_last;
uint64_t hpx_dwt_high;

int hpx_counter_init(void) {
    DEMCR |= DEMCR_TRCENA; /* after the start-up powered the debug domain (Apollo4 Plus) */
    if (!(DEMCR & DEMCR_TRCENA)) {
        return HPX_COUNTER_ERR_ENABLE;
    }
    DWT_LAR = 0xC5ACCE55u; /* unlock where the lock is implemented; ignored elsewhere */
    if (DWT_CTRL & DWT_CTRL_NOCYCCNT) {
        return HPX_COUNTER_ERR_ABSENT;
    }
    HPX_DWT_CYCCNT = 0u;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    if (!(DWT_CTRL & DWT_CTRL_CYCCNTENA)) {
        return HPX_COUNTER_ERR_ENABLE;
    }
    hpx_dwt_last = 0u;
    hpx_dwt_high = 0u;
    return hpx_counter_check_advances();
}

const char *hpx_counter_name(void) {
    return "dwt";
}

const char *hpx_counter_units(void) {
    return "cycles";
}

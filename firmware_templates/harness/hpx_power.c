/* The power pass: see hpx_power.h (compiled only in a power build). */
#include "hpx_power.h"

#include "hpx_config.h"
#include "hpx_engine.h"
#include "hpx_layers.h"
#include "hpx_memory.h"
#include "hpx_platform.h"
#include "hpx_wire.h"

/* Busy-loop turns: how long the host may take to send its go, the settle after it (the
 * debugger's current dies away), and the idle stretch after each inference. */
#ifndef HPX_POWER_WAIT_LOOPS
#define HPX_POWER_WAIT_LOOPS 400000000u
#endif
#ifndef HPX_POWER_SETTLE_LOOPS
#define HPX_POWER_SETTLE_LOOPS 20000000u
#endif
#ifndef HPX_POWER_IDLE_LOOPS
#define HPX_POWER_IDLE_LOOPS 2000000u
#endif

volatile uint32_t hpx_power_go;
volatile uint8_t hpx_power_active;

__attribute__((weak)) void hpx_platform_power_state(uint32_t state) {
    (void)state;
}

void hpx_power_layer_begin(uint32_t index) {
    hpx_platform_power_state((index & 1u) != 0u ? 2u : 3u);
}

static void spin(uint32_t loops) {
    for (volatile uint32_t i = 0; i < loops; i++) {
    }
}

static int wait_for_go(void) {
    for (volatile uint32_t i = 0; i < HPX_POWER_WAIT_LOOPS; i++) {
        if (hpx_power_go != 0u) {
            return 1;
        }
    }
    return 0;
}

static int window(uint32_t iteration, hpx_mode_t mode) {
    int rc = hpx_engine_prepare_input(iteration);
    if (rc != 0) {
        return rc;
    }
    hpx_power_active = (uint8_t)(mode == HPX_MODE_LAYERS);
    hpx_memory_active = hpx_power_active; /* the layer path tests this first */
    hpx_platform_power_state(3u);
    rc = hpx_engine_invoke(mode);
    hpx_platform_power_state(0u);
    hpx_memory_active = 0u;
    hpx_power_active = 0u;
    spin(HPX_POWER_IDLE_LOOPS);
    return rc;
}

static int windows(void) {
    int rc = 0;
    hpx_slots_reset(0); /* every layer takes the disabled-slot path, where the hook sits */
    for (uint32_t i = 0; i < HPX_ITERATIONS && rc == 0; i++) {
        rc = window(i, HPX_MODE_WHOLE);
    }
    for (uint32_t i = 0; i < HPX_ITERATIONS && rc == 0; i++) {
        rc = window(i, HPX_MODE_LAYERS);
    }
    return rc;
}

int hpx_power_pass(void) {
    hpx_platform_power_state(0u);
    hpx_wire_begin("POWER");
    hpx_wire_u64("iterations", HPX_ITERATIONS);
    hpx_wire_end();
    hpx_transport_wait_host();
    int went = wait_for_go();
    int rc = 0;
    if (went) {
        hpx_platform_timed(1); /* the transport never waits during the windows */
        spin(HPX_POWER_SETTLE_LOOPS);
        rc = windows();
        hpx_platform_timed(0);
    }
    hpx_wire_begin("POWEREND");
    hpx_wire_u64("windows", went && rc == 0 ? 2u * HPX_ITERATIONS : 0u);
    hpx_wire_end();
    return rc;
}

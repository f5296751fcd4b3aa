/*
 * The uncounted power pass (HPX_POWER_PASS, silicon boards with an energy instrument): after
 * the memory pass and the layer check, the firmware marks energy windows on the board's two
 * power GPIOs (hpx_platform_power_state: state = GPIO0 + 2 x GPIO1) while an instrument on
 * the board's supply records current, voltage and both pads.
 *
 *   POWER record -> wait for the host's go (hpx_power_go, written through the probe before it
 *   lets go; bounded: without a host the pass is skipped) -> settle -> ITERATIONS whole
 *   inferences, each in state 3 -> ITERATIONS instrumented inferences, layer i in state 3 when
 *   i is even and 2 when odd (set at its hpx_layer_begin, so consecutive layers meet without a
 *   gap) -> state 0 -> POWEREND record.
 *
 * Between inferences the pads read 0 for an idle stretch, the floor the host reports. Nothing
 * is written to the wire during the windows (the transport never waits then), so neither the
 * debugger nor the stream's traffic lands in a window. Only a power build compiles this pass,
 * calls hpx_power_pass() from main() and has the layer hook in hpx_layer_begin, behind the
 * memory pass's test (the pass raises hpx_memory_active too), so the counted path runs the
 * same instructions as in a build without it: every other build is the firmware it was, and a
 * power build counts what it counts.
 */
#ifndef HPX_POWER_H
#define HPX_POWER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Set by the host through the probe once it records: the windows may start. */
extern volatile uint32_t hpx_power_go;
/* Non-zero during an instrumented inference of the pass: hpx_layer_begin marks layers. */
extern volatile uint8_t hpx_power_active;

int hpx_power_pass(void);
void hpx_power_layer_begin(uint32_t index);
/* The board drives its two power GPIOs to state (bit 0: GPIO0, bit 1: GPIO1). Weak no-op in
 * the harness; Apollo boards implement it (boards/apollo/apollo_power.c). */
void hpx_platform_power_state(uint32_t state);

#ifdef __cplusplus
}
#endif

#endif

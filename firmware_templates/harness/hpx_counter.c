/*
 * Per-layer accumulation behind hpx_layer_begin/hpx_layer_end. A slot records only when it is
 * enabled, so the same code path runs whatever the mode (the calibrated cost stays valid).
 * A disabled slot's path hands the layer to the memory pass while that runs (hpx_memory.h):
 * never taken between a counted pair's reads, so no count sees it.
 * With a backend that has event counters (HPX_MAX_EVENTS > 0) each slot also accumulates every
 * event, read outside the main counter's window: before its start, after its end.
 * The power pass's layer hook (hpx_power.h) sits behind the memory pass's test, compiled in
 * only with HPX_POWER_PASS: a path no counted pair takes, so no build's counts change.
 */
#include "hpx_counter.h"

#include "hpx_counter_backend.h"
#include "hpx_layers.h"
#include "hpx_memory.h"
#include "hpx_power.h"

#define HPX_SLOTS (HPX_MAX_LAYERS + 1)

uint8_t hpx_slot_enabled[HPX_SLOTS];
static uint64_t slot_start[HPX_SLOTS];
uint64_t hpx_slot_total[HPX_SLOTS];
uint32_t hpx_slot_calls[HPX_SLOTS];
uint8_t hpx_slot_open[HPX_SLOTS];
uint32_t hpx_slot_overflow;
#if HPX_MAX_EVENTS > 0
static uint32_t slot_event_start[HPX_SLOTS][HPX_MAX_EVENTS];
uint64_t hpx_slot_event_total[HPX_SLOTS][HPX_MAX_EVENTS];
uint8_t hpx_slot_event_overflow[HPX_SLOTS];

static void events_begin(uint32_t index) {
    int unused;
    for (uint32_t k = 0; k < hpx_counter_event_count(); k++) {
        slot_event_start[index][k] = hpx_counter_event_read(k, &unused);
    }
    hpx_counter_event_clear_overflow();
}

static void events_end(uint32_t index) {
    for (uint32_t k = 0; k < hpx_counter_event_count(); k++) {
        int wrapped = 0;
        uint32_t now = hpx_counter_event_read(k, &wrapped);
        hpx_slot_event_total[index][k] += (uint32_t)(now - slot_event_start[index][k]);
        hpx_slot_event_overflow[index] |= (uint8_t)(wrapped != 0);
    }
}
#endif

void hpx_layer_begin(uint32_t index) {
    if (index >= HPX_SLOTS) {
        hpx_slot_overflow++;
        return;
    }
    if (!hpx_slot_enabled[index]) {
        if (hpx_memory_active) {
#if HPX_POWER_PASS
            if (hpx_power_active) { /* the power pass raises both: one test on the path */
                hpx_power_layer_begin(index);
                return;
            }
#endif
            hpx_memory_layer_begin(index);
        }
        return;
    }
    hpx_slot_open[index] = 1u;
#if HPX_MAX_EVENTS > 0
    events_begin(index);
#endif
    slot_start[index] = hpx_counter_read();
}

void hpx_layer_end(uint32_t index) {
    uint64_t now = hpx_counter_read();
    if (index >= HPX_SLOTS) {
        hpx_slot_overflow++;
        return;
    }
    if (!hpx_slot_enabled[index]) {
        if (hpx_memory_active) {
#if HPX_POWER_PASS
            if (hpx_power_active) {
                return;
            }
#endif
            hpx_memory_layer_end(index);
        }
        return;
    }
    hpx_slot_total[index] += hpx_counter_span(slot_start[index], now); /* after the read */
#if HPX_MAX_EVENTS > 0
    events_end(index);
#endif
    hpx_slot_calls[index]++;
    hpx_slot_open[index] = 0u;
}

void hpx_slots_reset(int layers_enabled) {
    for (uint32_t i = 0; i < HPX_SLOTS; i++) {
        hpx_slot_enabled[i] = (uint8_t)(layers_enabled ? 1u : 0u);
        hpx_slot_total[i] = 0u;
        hpx_slot_calls[i] = 0u;
        hpx_slot_open[i] = 0u;
#if HPX_MAX_EVENTS > 0
        hpx_slot_event_overflow[i] = 0u;
        for (uint32_t k = 0; k < HPX_MAX_EVENTS; k++) {
            hpx_slot_event_total[i][k] = 0u;
        }
#endif
    }
    hpx_slot_enabled[HPX_RESERVED_SLOT] = 1u;
    hpx_slot_overflow = 0u;
}

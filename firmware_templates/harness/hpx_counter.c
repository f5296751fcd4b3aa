/*
 * Per-layer accumulation behind hpx_layer_begin/hpx_layer_end. A slot records only when it is
 * enabled, so the same code path runs whatever the mode (the calibrated cost stays valid).
 */
#include "hpx_counter.h"

#include "hpx_counter_backend.h"
#include "hpx_layers.h"

#define HPX_SLOTS (HPX_MAX_LAYERS + 1)

uint8_t hpx_slot_enabled[HPX_SLOTS];
static uint64_t slot_start[HPX_SLOTS];
uint64_t hpx_slot_total[HPX_SLOTS];
uint32_t hpx_slot_calls[HPX_SLOTS];
uint8_t hpx_slot_open[HPX_SLOTS];
uint32_t hpx_slot_overflow;

void hpx_layer_begin(uint32_t index) {
    if (index >= HPX_SLOTS) {
        hpx_slot_overflow++;
        return;
    }
    if (!hpx_slot_enabled[index]) {
        return;
    }
    hpx_slot_open[index] = 1u;
    slot_start[index] = hpx_counter_read();
}

void hpx_layer_end(uint32_t index) {
    uint64_t now = hpx_counter_read();
    if (index >= HPX_SLOTS) {
        hpx_slot_overflow++;
        return;
    }
    if (!hpx_slot_enabled[index]) {
        return;
    }
    hpx_slot_total[index] += now - slot_start[index];
    hpx_slot_calls[index]++;
    hpx_slot_open[index] = 0u;
}

void hpx_slots_reset(int layers_enabled) {
    for (uint32_t i = 0; i < HPX_SLOTS; i++) {
        hpx_slot_enabled[i] = (uint8_t)(layers_enabled ? 1u : 0u);
        hpx_slot_total[i] = 0u;
        hpx_slot_calls[i] = 0u;
        hpx_slot_open[i] = 0u;
    }
    hpx_slot_enabled[HPX_RESERVED_SLOT] = 1u;
    hpx_slot_overflow = 0u;
}

/* Slot tables of hpx_counter.c, read by the harness flow. */
#ifndef HPX_LAYERS_H
#define HPX_LAYERS_H

#include <stdint.h>

#include "hpx_counter.h"
#include "hpx_counter_backend.h"

extern uint64_t hpx_slot_total[HPX_MAX_LAYERS + 1];
extern uint32_t hpx_slot_calls[HPX_MAX_LAYERS + 1];
extern uint8_t hpx_slot_open[HPX_MAX_LAYERS + 1];
extern uint32_t hpx_slot_overflow;
#if HPX_MAX_EVENTS > 0
extern uint64_t hpx_slot_event_total[HPX_MAX_LAYERS + 1][HPX_MAX_EVENTS];
extern uint8_t hpx_slot_event_overflow[HPX_MAX_LAYERS + 1];
#endif

void hpx_slots_reset(int layers_enabled);

#endif

/* Slot tables of hpx_counter.c, read by the harness flow. */
#ifndef HPX_LAYERS_H
#define HPX_LAYERS_H

#include <stdint.h>

#include "hpx_counter.h"

extern uint64_t hpx_slot_total[HPX_MAX_LAYERS + 1];
extern uint32_t hpx_slot_calls[HPX_MAX_LAYERS + 1];
extern uint8_t hpx_slot_open[HPX_MAX_LAYERS + 1];
extern uint32_t hpx_slot_overflow;

void hpx_slots_reset(int layers_enabled);

#endif

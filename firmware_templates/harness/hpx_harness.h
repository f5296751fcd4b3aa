/* Harness internals shared by its C and assembly files. */
#ifndef HPX_HARNESS_H
#define HPX_HARNESS_H

#include <stdint.h>

#include "hpx_engine.h"

/* Exit statuses (the emulator's exit status; the host maps them). */
#define HPX_EXIT_OK 0
#define HPX_EXIT_ENGINE_ERROR 1
#define HPX_EXIT_HARNESS_ERROR 2
#define HPX_EXIT_FAULT 3

/* Error codes in ERROR records (stage says where; engine codes are passed through). */
#define HPX_ERR_COUNTER_INIT 1
#define HPX_ERR_LAYER_OVERFLOW 2
#define HPX_ERR_UNBALANCED 3

/* Assembly helpers (hpx_measure.S): fixed instruction sequences, so their cost is known. */
void hpx_calibration_pair(void);
int hpx_measure_whole(void);

/* The uncounted layer check pass (hpx_check.c): 0, or the engine's error code. */
int hpx_check_pass(void);

#endif

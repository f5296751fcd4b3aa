/*
 * The counter API engines call around each layer. Indices are 0-based layer positions, below
 * HPX_MAX_LAYERS. A layer may be entered several times per inference; its counts add up and
 * the number of entries is reported, so the host subtracts the calibrated cost per entry.
 */
#ifndef HPX_COUNTER_H
#define HPX_COUNTER_H

#include "hpx_config.h"

#ifndef HPX_MAX_LAYERS
#define HPX_MAX_LAYERS 240
#endif
/* One slot past the layers, used for calibration and the whole-inference measurement. */
#define HPX_RESERVED_SLOT HPX_MAX_LAYERS

#ifndef __ASSEMBLER__
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void hpx_layer_begin(uint32_t index);
void hpx_layer_end(uint32_t index);

#ifdef __cplusplus
}
#endif
#endif

#endif

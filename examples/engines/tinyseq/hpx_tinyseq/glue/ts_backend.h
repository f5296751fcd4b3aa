/*
 * The dense kernel a backend provides (one file per backend). Both compute exactly
 *   out[o] = clamp((bias[o] + sum_i in[i] * w[o][i] + 2^(shift-1)) >> shift, -128, 127)
 */
#ifndef TS_BACKEND_H
#define TS_BACKEND_H

#include <stdint.h>

#include "ts_model.h"

void ts_backend_dense(const ts_layer_t *layer, const int8_t *input, int8_t *output);

static inline int8_t ts_requantize(int32_t acc, int32_t shift) {
    if (shift > 0) {
        acc = (acc + (1 << (shift - 1))) >> shift;
    }
    return (int8_t)(acc < -128 ? -128 : acc > 127 ? 127 : acc);
}

#endif

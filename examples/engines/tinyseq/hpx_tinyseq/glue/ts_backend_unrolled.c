/*
 * Backend "unrolled": four multiply-accumulates per step into four accumulators, then the
 * remainder. Integer sums are exact, so the result is the plain backend's bit for bit.
 */
#include "ts_backend.h"

void ts_dense_unrolled(const ts_layer_t *l, const int8_t *input, int8_t *output);

void ts_dense_unrolled(const ts_layer_t *l, const int8_t *input, int8_t *output) {
    const uint32_t n = l->inputs;
    const uint32_t n4 = n & ~3u;
    for (uint32_t o = 0; o < l->outputs; o++) {
        const int8_t *row = l->weights + o * n;
        int32_t a0 = l->bias[o], a1 = 0, a2 = 0, a3 = 0;
        uint32_t i = 0;
        for (; i < n4; i += 4) {
            a0 += (int32_t)input[i] * (int32_t)row[i];
            a1 += (int32_t)input[i + 1] * (int32_t)row[i + 1];
            a2 += (int32_t)input[i + 2] * (int32_t)row[i + 2];
            a3 += (int32_t)input[i + 3] * (int32_t)row[i + 3];
        }
        for (; i < n; i++) {
            a0 += (int32_t)input[i] * (int32_t)row[i];
        }
        output[o] = ts_requantize(a0 + a1 + a2 + a3, l->shift);
    }
}

void ts_backend_dense(const ts_layer_t *layer, const int8_t *input, int8_t *output) {
    ts_dense_unrolled(layer, input, output);
}

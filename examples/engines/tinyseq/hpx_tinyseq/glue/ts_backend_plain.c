/*
 * Backend "plain": one multiply-accumulate per step.
 */
#include "ts_backend.h"

void ts_dense_plain(const ts_layer_t *l, const int8_t *input, int8_t *output);

void ts_dense_plain(const ts_layer_t *l, const int8_t *input, int8_t *output) {
    for (uint32_t o = 0; o < l->outputs; o++) {
        const int8_t *row = l->weights + o * l->inputs;
        int32_t acc = l->bias[o];
        for (uint32_t i = 0; i < l->inputs; i++) {
            acc += (int32_t)input[i] * (int32_t)row[i];
        }
        output[o] = ts_requantize(acc, l->shift);
    }
}

void ts_backend_dense(const ts_layer_t *layer, const int8_t *input, int8_t *output) {
    ts_dense_plain(layer, input, output);
}

/*
 * int8 fully connected layer with per-tensor requantization.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kb_kernels.h"

int kb_fully_connected_s8(const kb_fc_params *params, int32_t batches, int32_t depth,
                          int32_t units, const int8_t *input, const int8_t *weights,
                          const int32_t *bias, int8_t *output) {
    if (batches < 1 || depth < 1 || units < 1 || params->act_min > params->act_max) {
        return KB_ARG_ERROR;
    }
    for (int32_t b = 0; b < batches; b++) {
        const int8_t *row = input + b * depth;
        for (int32_t u = 0; u < units; u++) {
            const int8_t *w = weights + u * depth;
            int32_t acc = bias != 0 ? bias[u] : 0;
            for (int32_t i = 0; i < depth; i++) {
                acc += ((int32_t)row[i] + params->input_offset) * w[i];
            }
            acc = kb_requantize(acc, params->multiplier, params->shift) + params->output_offset;
            acc = acc < params->act_min ? params->act_min : acc;
            acc = acc > params->act_max ? params->act_max : acc;
            output[b * units + u] = (int8_t)acc;
        }
    }
    return KB_OK;
}

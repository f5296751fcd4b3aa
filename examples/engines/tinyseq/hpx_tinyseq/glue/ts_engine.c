/*
 * The tinyseq engine behind hpx's harness (hpx_engine.h): every layer of the model is one
 * layer of the results, framed by hpx_layer_begin/hpx_layer_end; the last layer's output is
 * reported for the host to compare with its reference. Error codes (hpx_tinyseq.results):
 *   TS_ERR_NO_OUTPUT   finish was reached without an inference
 *   TS_ERR_LAYER + i   layer i has an operator this build does not know
 */
#include <stddef.h>
#include <string.h>

#include "hpx_engine.h"
#include "ts_backend.h"
#include "ts_model.h"

#define TS_ERR_NO_OUTPUT 1
#define TS_ERR_LAYER 1000

static const int8_t *last_output;

/* Not inlined: hpx_engine_check calls it too, and a helper inlined into hpx_engine_invoke only
 * in builds without the check would make the counted code differ between the two builds. */
__attribute__((noinline)) static int run_layer(const ts_layer_t *l, const int8_t *input, int8_t *output) {
    switch (l->kind) {
    case TS_OP_DENSE:
        ts_backend_dense(l, input, output);
        return 0;
    case TS_OP_RELU:
        for (uint32_t i = 0; i < l->inputs; i++) {
            output[i] = input[i] < 0 ? 0 : input[i];
        }
        return 0;
    case TS_OP_CLAMP:
        for (uint32_t i = 0; i < l->inputs; i++) {
            const int8_t v = input[i];
            output[i] = (int8_t)(v < l->low ? l->low : v > l->high ? l->high : v);
        }
        return 0;
    default:
        return -1;
    }
}

int hpx_engine_init(void) {
    last_output = NULL;
    return 0;
}

int hpx_engine_describe(void) {
    for (uint32_t i = 0; i < ts_model.count; i++) {
        hpx_report_layer(i, ts_model.layers[i].name, ts_model.layers[i].op);
    }
    return 0;
}

int hpx_engine_prepare_input(uint32_t iteration) {
    (void)iteration;
    memcpy(ts_model.buffers[0], ts_model.input, ts_model.input_size);
    return 0;
}

int hpx_engine_invoke(hpx_mode_t mode) {
    const int per_layer = mode == HPX_MODE_LAYERS;
    for (uint32_t i = 0; i < ts_model.count; i++) {
        const int8_t *input = ts_model.buffers[i % 2u];
        int8_t *output = ts_model.buffers[(i + 1u) % 2u];
        if (per_layer) {
            hpx_layer_begin(i);
        }
        const int rc = run_layer(&ts_model.layers[i], input, output);
        if (per_layer) {
            hpx_layer_end(i);
        }
        if (rc != 0) {
            return TS_ERR_LAYER + (int)i;
        }
        last_output = output;
    }
    return 0;
}

#if HPX_CHECK_LAYERS
/* One uncounted inference; each layer reads one ping-pong buffer and writes the other, so its
 * input is intact when it is handed to the check. */
int hpx_engine_check(void) {
    memcpy(ts_model.buffers[0], ts_model.input, ts_model.input_size);
    for (uint32_t i = 0; i < ts_model.count; i++) {
        const ts_layer_t *l = &ts_model.layers[i];
        const int8_t *input = ts_model.buffers[i % 2u];
        int8_t *output = ts_model.buffers[(i + 1u) % 2u];
        if (run_layer(l, input, output) != 0) {
            return TS_ERR_LAYER + (int)i;
        }
        const hpx_tensor_view_t outs[] = {{output, l->outputs, HPX_DTYPE_INT8}};
        const hpx_tensor_view_t ins[] = {{input, l->inputs, HPX_DTYPE_INT8}};
        hpx_check_layer(i, outs, 1, &ts_expected_crc[i], ins, 1);
    }
    return 0;
}
#endif

int hpx_engine_finish(void) {
    if (last_output == NULL) {
        return TS_ERR_NO_OUTPUT;
    }
    hpx_report_output(0, (const uint8_t *)last_output, ts_model.output_size);
    hpx_report_metric("layers", ts_model.count);
    return 0;
}

/*
 * The kernelbench engine behind hpx's harness (hpx_engine.h): every kernel call of the model
 * is one layer, framed by hpx_layer_begin/hpx_layer_end; the last call's output is reported
 * for the host to compare with its reference. Error codes say what failed and for which layer
 * (hpx_kernelbench.results.explain turns them into words):
 *   KB_ERR_PREPARE + i  the backend refused layer i at init (its scratch does not fit)
 *   KB_ERR_KERNEL + i   the kernel of layer i returned an error
 */
#include <stddef.h>
#include <string.h>

#include "hpx_engine.h"
#include "kb_backend.h"
#include "kb_model.h"

#define KB_ERR_NO_OUTPUT 1
#define KB_ERR_PREPARE 1000
#define KB_ERR_KERNEL 2000

static const int8_t *last_output;

int hpx_engine_init(void) {
    last_output = NULL;
    for (uint32_t i = 0; i < kb_model.count; i++) {
        if (kb_backend_prepare(i, &kb_model.layers[i]) != 0) {
            return KB_ERR_PREPARE + (int)i;
        }
    }
    return 0;
}

int hpx_engine_describe(void) {
    for (uint32_t i = 0; i < kb_model.count; i++) {
        hpx_report_layer(i, kb_model.layers[i].name, kb_model.layers[i].op);
    }
    return 0;
}

int hpx_engine_prepare_input(uint32_t iteration) {
    (void)iteration;
    memcpy(kb_model.buffers[0], kb_model.input, kb_model.input_size);
    return 0;
}

int hpx_engine_invoke(hpx_mode_t mode) {
    const int per_layer = mode == HPX_MODE_LAYERS;
    for (uint32_t i = 0; i < kb_model.count; i++) {
        const int8_t *input = kb_model.buffers[i % 2u];
        int8_t *output = kb_model.buffers[(i + 1u) % 2u];
        if (per_layer) {
            hpx_layer_begin(i);
        }
        const int rc = kb_backend_run(i, &kb_model.layers[i], input, output);
        if (per_layer) {
            hpx_layer_end(i);
        }
        if (rc != 0) {
            return KB_ERR_KERNEL + (int)i;
        }
        last_output = output;
    }
    return 0;
}

/* The memory pass (hpx_memory.h): both activation buffers and the library's scratch watched
 * layer by layer, and the scratch the backend asked for at prepare time as its plan. */
void hpx_engine_memory(uint32_t moment) {
    if (moment != HPX_MEMORY_BEFORE) {
        return;
    }
    const size_t activations = 2u * (size_t)(kb_model.buffers[1] - kb_model.buffers[0]);
    hpx_memory_report("activations.size", activations);
    hpx_memory_watch("activations", kb_model.buffers[0], activations, 0u);
    if (kb_model.scratch_size > 0u) {
        hpx_memory_report("scratch.size", kb_model.scratch_size);
        hpx_memory_report("scratch.planned", kb_backend_scratch_used());
        hpx_memory_watch("scratch", kb_model.scratch, kb_model.scratch_size, 0u);
    }
}

int hpx_engine_finish(void) {
    if (last_output == NULL) {
        return KB_ERR_NO_OUTPUT;
    }
    hpx_report_output(0, (const uint8_t *)last_output, kb_model.output_size);
    hpx_report_metric("kernel_calls", kb_model.count);
    hpx_report_metric("scratch_used", kb_backend_scratch_used());
    return 0;
}

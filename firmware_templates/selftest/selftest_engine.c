/*
 * The selftest "engine": layers are assembly loops whose instruction counts are known from
 * their code alone (selftest_layers.S, which also holds hpx_engine_invoke so its framing is
 * exact). The output tensor is the number of prepared inferences, which the host checks
 * against warm-up + 2 x iterations: it proves the harness ran every pass.
 */
#include <stdint.h>
#include <string.h>

#include "hpx_engine.h"
#include "selftest_layers.h"

static uint32_t prepared;

int hpx_engine_init(void) {
    prepared = 0u;
    return 0;
}

int hpx_engine_describe(void) {
    for (uint32_t i = 0; i < HPX_SELFTEST_LAYERS; i++) {
        hpx_report_layer(i, hpx_selftest_layer_names[i], hpx_selftest_layer_ops[i]);
    }
    return 0;
}

int hpx_engine_prepare_input(uint32_t iteration) {
    (void)iteration;
    prepared++;
    return 0;
}

int hpx_engine_finish(void) {
    uint8_t bytes[sizeof prepared];
    memcpy(bytes, &prepared, sizeof prepared);
    hpx_report_output(0, bytes, sizeof bytes);
    hpx_report_metric("selftest_layers", HPX_SELFTEST_LAYERS);
    return 0;
}

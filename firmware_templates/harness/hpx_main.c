/*
 * The harness flow, the same for every engine:
 *   start record -> counter start -> calibration of an empty begin/end pair -> engine init
 *   -> layer names -> warm-up -> uninstrumented whole-inference passes -> per-layer passes
 *   -> [memory: one uncounted inference, HPX_MEMORY_PASS] -> [layer check: one uncounted
 *   inference, HPX_CHECK_LAYERS] -> [power: energy windows on the board's power GPIOs,
 *   HPX_POWER_PASS, hpx_power.h] -> [validation: every sample of the host's window through
 *   the model, HPX_VALIDATE_PASS, hpx_validate.h] -> engine finish (outputs, metrics, files) -> end record.
 * Counts go out raw (counter units); the host subtracts the calibrated pair and converts units.
 */
#include <stdint.h>

#include "board.h"
#include "hpx_config.h"
#include "hpx_counter_backend.h"
#include "hpx_harness.h"
#include "hpx_layers.h"
#include "hpx_memory.h"
#include "hpx_platform.h"
#include "hpx_power.h"
#if HPX_VALIDATE_PASS
#include "hpx_validate.h"
#endif
#include "hpx_wire.h"

#ifndef HPX_ENGINE_NAME
#define HPX_ENGINE_NAME "unknown"
#endif
#ifndef HPX_BOARD_NAME
#define HPX_BOARD_NAME "unknown"
#endif
#ifndef HPX_ITERATIONS
#define HPX_ITERATIONS 3
#endif
#ifndef HPX_WARMUP
#define HPX_WARMUP 1
#endif
#ifndef HPX_CAL_REPEATS
#define HPX_CAL_REPEATS 8
#endif

/* Records sent, announced in SUMMARY so the host can check nothing went missing. */
static uint32_t sent_whole;
static uint32_t sent_layers;

static void send_start(void) {
    hpx_wire_begin("START");
    hpx_wire_u64("v", HPX_WIRE_VERSION);
    hpx_wire_str("board", HPX_BOARD_NAME);
    hpx_wire_str("engine", HPX_ENGINE_NAME);
    hpx_wire_str("counter", hpx_counter_name());
    hpx_wire_str("units", hpx_counter_units());
    hpx_wire_u64("iterations", HPX_ITERATIONS);
    hpx_wire_u64("warmup", HPX_WARMUP);
    hpx_wire_u64("max_layers", HPX_MAX_LAYERS);
    hpx_wire_end();
}

static int fail(const char *stage, int32_t code, int exit_status) {
    hpx_wire_begin("ERROR");
    hpx_wire_str("stage", stage);
    hpx_wire_i32("code", code);
    hpx_wire_end();
    hpx_wire_begin("END");
    hpx_wire_u64("status", (uint64_t)exit_status);
    hpx_wire_end();
    return exit_status;
}

#if HPX_MAX_EVENTS > 0
/* Which events this pass counts, and what an empty begin/end pair adds to each. */
static void send_events(const uint64_t *pair_sums) {
    for (uint32_t k = 0; k < hpx_counter_event_count(); k++) {
        hpx_wire_begin("EVENTINFO");
        hpx_wire_u64("ev", k);
        hpx_wire_u64("number", hpx_counter_event_number(k));
        hpx_wire_u64("cal_sum", pair_sums[k]);
        hpx_wire_end();
    }
}
#endif

static void calibrate(void) {
    uint64_t low = UINT64_MAX;
    uint64_t high = 0u;
    uint64_t sum = 0u;
#if HPX_MAX_EVENTS > 0
    uint64_t event_sums[HPX_MAX_EVENTS] = {0u};
#endif
    for (uint32_t i = 0; i < HPX_CAL_REPEATS; i++) {
        hpx_slots_reset(1);
        hpx_calibration_pair();
        uint64_t value = hpx_slot_total[HPX_RESERVED_SLOT];
        low = value < low ? value : low;
        high = value > high ? value : high;
        sum += value;
#if HPX_MAX_EVENTS > 0
        for (uint32_t k = 0; k < HPX_MAX_EVENTS; k++) {
            event_sums[k] += hpx_slot_event_total[HPX_RESERVED_SLOT][k];
        }
#endif
    }
    hpx_wire_begin("CAL");
    hpx_wire_u64("repeats", HPX_CAL_REPEATS);
    hpx_wire_u64("min", low);
    hpx_wire_u64("max", high);
    hpx_wire_u64("sum", sum);
    hpx_wire_end();
#if HPX_MAX_EVENTS > 0
    send_events(event_sums);
#endif
}

/* Transports whose host attaches after the firmware starts (RTT through a debug probe) wait
 * here for it (hpx_platform.h); the emulated boards' UART is read from the first byte. */
__attribute__((weak)) void hpx_transport_wait_host(void) {
}

/* Boards that need nothing around a counted inference (hpx_platform.h) get this. */
__attribute__((weak)) void hpx_platform_timed(int timed) {
    (void)timed;
}

static int run_whole(uint32_t iteration, int record) {
    int rc = hpx_engine_prepare_input(iteration);
    if (rc != 0) {
        return fail("prepare_input", rc, HPX_EXIT_ENGINE_ERROR);
    }
    hpx_slots_reset(0);
    hpx_platform_timed(1);
    rc = hpx_measure_whole();
    hpx_platform_timed(0);
    if (rc != 0) {
        return fail("invoke", rc, HPX_EXIT_ENGINE_ERROR);
    }
    if (record) {
        hpx_wire_begin("WHOLE");
        hpx_wire_u64("iter", iteration);
        hpx_wire_u64("raw", hpx_slot_total[HPX_RESERVED_SLOT]);
        hpx_wire_end();
        sent_whole++;
    }
    return 0;
}

static int send_layers(uint32_t iteration) {
    for (uint32_t i = 0; i < HPX_MAX_LAYERS; i++) {
        if (hpx_slot_open[i]) {
            return fail("layers", HPX_ERR_UNBALANCED, HPX_EXIT_HARNESS_ERROR);
        }
        if (hpx_slot_calls[i] == 0u) {
            continue;
        }
        hpx_wire_begin("LAYER");
        hpx_wire_u64("iter", iteration);
        hpx_wire_u64("idx", i);
        hpx_wire_u64("raw", hpx_slot_total[i]);
        hpx_wire_u64("calls", hpx_slot_calls[i]);
        hpx_wire_end();
        sent_layers++;
#if HPX_MAX_EVENTS > 0
        for (uint32_t k = 0; k < hpx_counter_event_count(); k++) {
            hpx_wire_begin("LAYEREV");
            hpx_wire_u64("iter", iteration);
            hpx_wire_u64("idx", i);
            hpx_wire_u64("ev", k);
            hpx_wire_u64("raw", hpx_slot_event_total[i][k]);
            hpx_wire_u64("ovf", hpx_slot_event_overflow[i]);
            hpx_wire_end();
        }
#endif
    }
    if (hpx_slot_overflow != 0u) {
        return fail("layers", HPX_ERR_LAYER_OVERFLOW, HPX_EXIT_HARNESS_ERROR);
    }
    return 0;
}

static int run_layers(uint32_t iteration) {
    int rc = hpx_engine_prepare_input(iteration);
    if (rc != 0) {
        return fail("prepare_input", rc, HPX_EXIT_ENGINE_ERROR);
    }
    hpx_slots_reset(1);
    hpx_platform_timed(1);
    rc = hpx_engine_invoke(HPX_MODE_LAYERS);
    hpx_platform_timed(0);
    if (rc != 0) {
        return fail("invoke", rc, HPX_EXIT_ENGINE_ERROR);
    }
    return send_layers(iteration);
}

int main(void) {
    send_start();
    /* Nothing is counted before the host is there: on the silicon boards it attaches after the
     * bootloader hands over, and an attach can reset DEMCR/DWT (and without a debugger the
     * Apollo4's CYCCNT may not run), so the counter is enabled and checked only after. */
    hpx_transport_wait_host();
    int counter = hpx_counter_init(); /* the backend's own code says what failed */
    if (counter != 0) {
        return fail("counter_init", counter, HPX_EXIT_HARNESS_ERROR);
    }
    calibrate();
    int rc = hpx_engine_init();
    if (rc != 0) {
        return fail("init", rc, HPX_EXIT_ENGINE_ERROR);
    }
    rc = hpx_engine_describe();
    if (rc != 0) {
        return fail("describe", rc, HPX_EXIT_ENGINE_ERROR);
    }
    for (uint32_t w = 0; w < HPX_WARMUP; w++) {
        if ((rc = run_whole(w, 0)) != 0) {
            return rc;
        }
    }
    for (uint32_t i = 0; i < HPX_ITERATIONS; i++) {
        if ((rc = run_whole(i, 1)) != 0) {
            return rc;
        }
    }
    for (uint32_t i = 0; i < HPX_ITERATIONS; i++) {
        if ((rc = run_layers(i)) != 0) {
            return rc;
        }
    }
    hpx_wire_begin("SUMMARY");
    hpx_wire_u64("whole", sent_whole);
    hpx_wire_u64("layer_records", sent_layers);
    hpx_wire_end();
    /* Called in every build (they return at once without HPX_MEMORY_PASS, HPX_CHECK_LAYERS),
     * so main() is the same code with and without them and nothing counted before can move. */
    if ((rc = hpx_memory_pass()) != 0) {
        return fail("memory", rc, HPX_EXIT_ENGINE_ERROR);
    }
    if ((rc = hpx_check_pass()) != 0) {
        return fail("check", rc, HPX_EXIT_ENGINE_ERROR);
    }
#if HPX_POWER_PASS
    if ((rc = hpx_power_pass()) != 0) {
        return fail("power", rc, HPX_EXIT_ENGINE_ERROR);
    }
#endif
#if HPX_VALIDATE_PASS
    if ((rc = hpx_validate_pass()) != 0) {
        return fail("validate", rc, HPX_EXIT_ENGINE_ERROR);
    }
#endif
    rc = hpx_engine_finish();
    if (rc != 0) {
        return fail("finish", rc, HPX_EXIT_ENGINE_ERROR);
    }
    hpx_wire_begin("END");
    hpx_wire_u64("status", HPX_EXIT_OK);
    hpx_wire_end();
    return HPX_EXIT_OK;
}

void hpx_report_layer(uint32_t index, const char *name, const char *op) {
    hpx_wire_begin("LAYERINFO");
    hpx_wire_u64("idx", index);
    hpx_wire_str("name", name);
    hpx_wire_str("op", op);
    hpx_wire_end();
}

void hpx_report_metric(const char *name, uint64_t value) {
    hpx_wire_begin("METRIC");
    hpx_wire_str("name", name);
    hpx_wire_u64("value", value);
    hpx_wire_end();
}

void hpx_print(const char *text) {
    hpx_wire_text(text);
}

#define HPX_OUTPUT_CHUNK 64u

void hpx_report_output(uint32_t tensor, const uint8_t *data, size_t size) {
    for (size_t offset = 0; offset < size || (size == 0u && offset == 0u);
         offset += HPX_OUTPUT_CHUNK) {
        size_t n = size - offset < HPX_OUTPUT_CHUNK ? size - offset : HPX_OUTPUT_CHUNK;
        hpx_wire_begin("OUTPUT");
        hpx_wire_u64("tensor", tensor);
        hpx_wire_u64("offset", offset);
        hpx_wire_u64("size", size);
        hpx_wire_bytes("hex", data + offset, n);
        hpx_wire_end();
        if (size == 0u) {
            break;
        }
    }
}

void hpx_report_file(const char *name, size_t offset, const uint8_t *data, size_t size) {
    for (size_t done = 0; done < size; done += HPX_OUTPUT_CHUNK) {
        size_t n = size - done < HPX_OUTPUT_CHUNK ? size - done : HPX_OUTPUT_CHUNK;
        hpx_wire_begin("FILE");
        hpx_wire_str("name", name);
        hpx_wire_u64("offset", offset + done);
        hpx_wire_bytes("hex", data + done, n);
        hpx_wire_end();
    }
}

void hpx_report_file_end(const char *name, size_t size) {
    hpx_wire_begin("FILEEND");
    hpx_wire_str("name", name);
    hpx_wire_u64("size", size);
    hpx_wire_end();
}

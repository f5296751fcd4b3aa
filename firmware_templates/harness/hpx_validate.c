/* The validation pass: see hpx_validate.h (compiled only in a validation build). */
#include "hpx_validate.h"

#include <string.h>

#include "hpx_config.h"
#include "hpx_engine.h"
#include "hpx_wire.h"

#define HPX_VOUT_CHUNK 64u

/* Initialized data in a section the emulated boards load in place (.hpx_sram): the host
 * writes the samples into a copy of the ELF, where this array's bytes are. */
__attribute__((section(".hpx_sram.validate"), aligned(16), used))
uint8_t hpx_validate_window[HPX_VALIDATE_WINDOW_BYTES] = {1u};

__attribute__((weak)) int hpx_engine_tensor(uint32_t direction, uint32_t index, uint8_t **data,
                                            size_t *size) {
    (void)direction;
    (void)index;
    (void)data;
    (void)size;
    return 1;
}

static uint32_t word(uint32_t index) {
    uint32_t value;
    memcpy(&value, hpx_validate_window + 4u * index, sizeof value);
    return value;
}

/* The inputs' total size (what one sample holds). */
static size_t input_bytes(void) {
    size_t total = 0u;
    uint8_t *data;
    size_t size;
    for (uint32_t t = 0u; hpx_engine_tensor(HPX_TENSOR_INPUT, t, &data, &size) == 0; t++) {
        total += size;
    }
    return total;
}

static void load_inputs(const uint8_t *sample) {
    uint8_t *data;
    size_t size;
    for (uint32_t t = 0u; hpx_engine_tensor(HPX_TENSOR_INPUT, t, &data, &size) == 0; t++) {
        memcpy(data, sample, size);
        sample += size;
    }
}

static uint32_t send_outputs(uint32_t sample) {
    uint32_t records = 0u;
    uint8_t *data;
    size_t size;
    for (uint32_t t = 0u; hpx_engine_tensor(HPX_TENSOR_OUTPUT, t, &data, &size) == 0; t++) {
        for (size_t offset = 0u; offset < size; offset += HPX_VOUT_CHUNK) {
            size_t n = size - offset < HPX_VOUT_CHUNK ? size - offset : HPX_VOUT_CHUNK;
            hpx_wire_begin("VOUT");
            hpx_wire_u64("sample", sample);
            hpx_wire_u64("tensor", t);
            hpx_wire_u64("offset", offset);
            hpx_wire_u64("size", size);
            hpx_wire_bytes("hex", data + offset, n);
            hpx_wire_end();
            records++;
        }
    }
    return records;
}

int hpx_validate_pass(void) {
    uint32_t samples = 0u, sample_bytes = 0u, first = 0u;
    if (word(0) == HPX_VALIDATE_MAGIC && word(1) == HPX_VALIDATE_VERSION) {
        samples = word(2);
        sample_bytes = word(3);
        first = word(4);
    }
    hpx_wire_begin("VALIDATE");
    hpx_wire_u64("samples", samples);
    hpx_wire_u64("first", first);
    hpx_wire_end();
    if (samples == 0u) {
        hpx_wire_begin("VALIDEND");
        hpx_wire_u64("samples", 0u);
        hpx_wire_u64("records", 0u);
        hpx_wire_end();
        return 0;
    }
    const uint64_t header = 4u * HPX_VALIDATE_HEADER_WORDS;
    if (header + (uint64_t)samples * sample_bytes > sizeof hpx_validate_window) {
        return HPX_ERR_VALIDATE_WINDOW;
    }
    if (sample_bytes != input_bytes()) {
        return HPX_ERR_VALIDATE_INPUTS;
    }
    uint32_t records = 0u;
    for (uint32_t s = 0u; s < samples; s++) {
        load_inputs(hpx_validate_window + header + (size_t)s * sample_bytes);
        int rc = hpx_engine_invoke(HPX_MODE_WHOLE);
        if (rc != 0) {
            return rc;
        }
        records += send_outputs(first + s);
    }
    hpx_wire_begin("VALIDEND");
    hpx_wire_u64("samples", samples);
    hpx_wire_u64("records", records);
    hpx_wire_end();
    return 0;
}

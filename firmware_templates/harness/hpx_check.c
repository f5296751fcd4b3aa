/* The layer check's records (see hpx_check.h). Runs only in the uncounted check pass. */
#include "hpx_check.h"

#include "hpx_config.h"
#include "hpx_engine.h"
#include "hpx_harness.h"
#include "hpx_layers.h"
#include "hpx_wire.h"

#ifndef HPX_CHECK_ALL
#define HPX_CHECK_ALL 0
#endif
#ifndef HPX_CHECK_DUMP_LIMIT
#define HPX_CHECK_DUMP_LIMIT (1024u * 1024u)
#endif
#define HPX_CHECK_CHUNK 64u

static uint32_t sent_sums;
static uint32_t sent_chunks;
static uint32_t skipped;
static uint32_t dumped_layers;
static size_t dumped_bytes;

static const char *const dtype_names[] = {"raw", "int8", "uint8", "int16", "int32", "float32"};
static const size_t dtype_sizes[] = {1u, 1u, 1u, 2u, 4u, 4u};

/* float32 statistics in Q16.16, rounded half away from zero; NaN counts as 0. */
static int64_t q16(float value) {
    double scaled = (double)value * 65536.0;
    if (!(scaled == scaled)) {
        return 0;
    }
    if (scaled > 4.0e18) {
        return INT64_C(4000000000000000000);
    }
    if (scaled < -4.0e18) {
        return -INT64_C(4000000000000000000);
    }
    return (int64_t)(scaled + (scaled >= 0.0 ? 0.5 : -0.5));
}

static int64_t element(const hpx_tensor_view_t *t, size_t i) {
    const uint8_t *p = (const uint8_t *)t->data + i * dtype_sizes[t->dtype];
    switch (t->dtype) {
        case HPX_DTYPE_INT8:
            return *(const int8_t *)p;
        case HPX_DTYPE_INT16: {
            int16_t v;
            __builtin_memcpy(&v, p, sizeof v);
            return v;
        }
        case HPX_DTYPE_INT32: {
            int32_t v;
            __builtin_memcpy(&v, p, sizeof v);
            return v;
        }
        case HPX_DTYPE_FLOAT32: {
            float v;
            __builtin_memcpy(&v, p, sizeof v);
            return q16(v);
        }
        default:
            return *p;
    }
}

static uint32_t send_sum(uint32_t layer, uint32_t index, const hpx_tensor_view_t *t) {
    size_t count = t->bytes / dtype_sizes[t->dtype];
    int64_t low = 0, high = 0, sum = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t v = element(t, i);
        low = (i == 0 || v < low) ? v : low;
        high = (i == 0 || v > high) ? v : high;
        sum += v;
    }
    uint32_t crc = hpx_wire_crc32(0u, (const uint8_t *)t->data, t->bytes);
    hpx_wire_begin("LAYERSUM");
    hpx_wire_u64("idx", layer);
    hpx_wire_u64("tensor", index);
    hpx_wire_str("dtype", dtype_names[t->dtype]);
    hpx_wire_u64("count", count);
    hpx_wire_hex32("crc", crc);
    hpx_wire_i64("min", low);
    hpx_wire_i64("max", high);
    hpx_wire_i64("sum", sum);
    hpx_wire_end();
    sent_sums++;
    return crc;
}

static void send_tensor(uint32_t layer, const char *role, uint32_t index,
                        const hpx_tensor_view_t *t) {
    const uint8_t *data = (const uint8_t *)t->data;
    size_t size = t->bytes;
    for (size_t offset = 0; offset < size || (size == 0u && offset == 0u);
         offset += HPX_CHECK_CHUNK) {
        size_t n = size - offset < HPX_CHECK_CHUNK ? size - offset : HPX_CHECK_CHUNK;
        hpx_wire_begin("TENSOR");
        hpx_wire_u64("idx", layer);
        hpx_wire_str("role", role);
        hpx_wire_u64("tensor", index);
        hpx_wire_u64("offset", offset);
        hpx_wire_u64("size", size);
        hpx_wire_bytes("hex", data + offset, n);
        hpx_wire_end();
        sent_chunks++;
        if (size == 0u) {
            break;
        }
    }
}

static size_t total_bytes(const hpx_tensor_view_t *ts, uint32_t n) {
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += ts[i].bytes;
    }
    return total;
}

void hpx_check_layer(uint32_t layer, const hpx_tensor_view_t *outs, uint32_t n_outs,
                     const uint32_t *expected, const hpx_tensor_view_t *ins, uint32_t n_ins) {
    int differs = 0;
    for (uint32_t k = 0; k < n_outs; k++) {
        uint32_t crc = send_sum(layer, k, &outs[k]);
        differs |= expected != 0 && crc != expected[k];
    }
    if (!differs || (!HPX_CHECK_ALL && dumped_layers > 0u)) {
        return;
    }
    size_t bytes = total_bytes(outs, n_outs) + total_bytes(ins, n_ins);
    if (dumped_bytes + bytes > HPX_CHECK_DUMP_LIMIT) {
        skipped += n_outs + n_ins;
        return;
    }
    for (uint32_t k = 0; k < n_outs; k++) {
        send_tensor(layer, "out", k, &outs[k]);
    }
    for (uint32_t k = 0; k < n_ins; k++) {
        send_tensor(layer, "in", k, &ins[k]);
    }
    dumped_layers++;
    dumped_bytes += bytes;
}

static void send_end(void) {
    hpx_wire_begin("CHECKEND");
    hpx_wire_u64("sums", sent_sums);
    hpx_wire_u64("chunks", sent_chunks);
    hpx_wire_u64("skipped", skipped);
    hpx_wire_end();
}

int hpx_check_pass(void) {
#if HPX_CHECK_LAYERS
    int rc = hpx_engine_prepare_input(0);
    if (rc != 0) {
        return rc;
    }
    hpx_slots_reset(0);
    rc = hpx_engine_check();
    if (rc != 0) {
        return rc;
    }
    send_end();
#else
    (void)send_end;
#endif
    return 0;
}

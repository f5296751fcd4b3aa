/*
 * The layer check (--check-layers): an uncounted pass after the measured ones in which the
 * engine hands every layer's output tensors to the harness. The harness sends a CRC-32 and
 * cheap statistics per tensor (LAYERSUM) and, for a layer whose CRC differs from the host
 * reference the engine compiled in, the whole tensors in chunks (TENSOR): its outputs and its
 * inputs as the layer read them. Only the first such layer is sent in full, or every one
 * (HPX_CHECK_ALL) within HPX_CHECK_DUMP_LIMIT bytes.
 */
#ifndef HPX_CHECK_H
#define HPX_CHECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HPX_DTYPE_RAW = 0, /* statistics over the bytes */
    HPX_DTYPE_INT8 = 1,
    HPX_DTYPE_UINT8 = 2,
    HPX_DTYPE_INT16 = 3,
    HPX_DTYPE_INT32 = 4,
    HPX_DTYPE_FLOAT32 = 5,
} hpx_dtype_t;

typedef struct {
    const void *data;
    size_t bytes;
    hpx_dtype_t dtype;
} hpx_tensor_view_t;

/* Report one layer's outputs; expected holds the host's CRC-32 per output (NULL: the host has
 * no reference for this layer). ins are the layer's inputs as it read them. */
void hpx_check_layer(uint32_t layer, const hpx_tensor_view_t *outs, uint32_t n_outs,
                     const uint32_t *expected, const hpx_tensor_view_t *ins, uint32_t n_ins);

#ifdef __cplusplus
}
#endif

#endif

/*
 * kernelbench-kernels: portable int8 kernels with TensorFlow Lite requantization.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Plain C11 without CMSIS or intrinsics, so the same code runs on any Cortex-M and on a host.
 * Conventions are TensorFlow Lite's (Arm CMSIS-NN is bit-exact with them):
 *   - activations are NHWC int8, convolution filters OHWI int8, fully connected weights
 *     [units, depth] int8; weights are symmetric (zero point 0); biases are int32;
 *   - input_offset is the negated input zero point, output_offset the output zero point;
 *   - an accumulator becomes an output through kb_requantize (per output channel for
 *     convolutions, per tensor for fully connected layers), plus output_offset, clamped to
 *     [act_min, act_max].
 */
#ifndef KB_KERNELS_H
#define KB_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KB_VERSION_MAJOR 1
#define KB_VERSION_MINOR 0
#define KB_VERSION_PATCH 0

#define KB_OK 0
#define KB_ARG_ERROR (-1)

/* Tensor dimensions; a fully connected layer uses n (batches) and c (features). */
typedef struct {
    int32_t n;
    int32_t h;
    int32_t w;
    int32_t c;
} kb_dims;

typedef struct {
    int32_t stride_h;
    int32_t stride_w;
    int32_t pad_h; /* rows of padding before the first row; any extra go after the last */
    int32_t pad_w; /* columns of padding before the first column */
    int32_t input_offset;
    int32_t output_offset;
    int32_t act_min;
    int32_t act_max;
} kb_conv_params;

typedef struct {
    int32_t input_offset;
    int32_t output_offset;
    int32_t act_min;
    int32_t act_max;
    int32_t multiplier;
    int32_t shift;
} kb_fc_params;

/* High 32 bits of 2*a*b, rounded to nearest (ties upward); INT32_MIN * INT32_MIN saturates. */
int32_t kb_saturating_rounding_doubling_high_mul(int32_t a, int32_t b);

/* x / 2^exponent (0 <= exponent <= 31), rounded to nearest, ties away from zero. */
int32_t kb_rounding_divide_by_pot(int32_t x, int32_t exponent);

/* value * multiplier * 2^shift / 2^31, as TensorFlow Lite's MultiplyByQuantizedMultiplier.
 * A positive shift must not overflow value * 2^shift. */
int32_t kb_requantize(int32_t value, int32_t multiplier, int32_t shift);

/* Convolution with per-output-channel multipliers and shifts (filter_dims: n = C_OUT,
 * h = KH, w = KW, c = C_IN). Returns KB_OK, or KB_ARG_ERROR when the shapes disagree. */
int kb_conv2d_s8(const kb_conv_params *params, const int32_t *multipliers,
                 const int32_t *shifts, const kb_dims *input_dims, const int8_t *input,
                 const kb_dims *filter_dims, const int8_t *filter, const int32_t *bias,
                 const kb_dims *output_dims, int8_t *output);

/* Fully connected layer: output[b][u] from input[b][0..depth) and weights[u][0..depth). */
int kb_fully_connected_s8(const kb_fc_params *params, int32_t batches, int32_t depth,
                          int32_t units, const int8_t *input, const int8_t *weights,
                          const int32_t *bias, int8_t *output);

#ifdef __cplusplus
}
#endif

#endif

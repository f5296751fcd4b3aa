/*
 * int8 2-D convolution, NHWC activations and OHWI filters, per-channel requantization.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The direct loop nest, written for clarity rather than speed: it is the baseline the optimized
 * libraries are measured against. Padded positions contribute nothing, as in TensorFlow Lite
 * (a padded input equals the input zero point).
 */
#include "kb_kernels.h"

static int32_t clamp(int32_t value, int32_t low, int32_t high) {
    return value < low ? low : (value > high ? high : value);
}

int kb_conv2d_s8(const kb_conv_params *params, const int32_t *multipliers,
                 const int32_t *shifts, const kb_dims *input_dims, const int8_t *input,
                 const kb_dims *filter_dims, const int8_t *filter, const int32_t *bias,
                 const kb_dims *output_dims, int8_t *output) {
    const int32_t in_h = input_dims->h, in_w = input_dims->w, in_c = input_dims->c;
    const int32_t k_h = filter_dims->h, k_w = filter_dims->w, out_c = filter_dims->n;
    if (filter_dims->c != in_c || output_dims->c != out_c || output_dims->n != input_dims->n ||
        params->stride_h < 1 || params->stride_w < 1 || params->act_min > params->act_max) {
        return KB_ARG_ERROR;
    }
    for (int32_t b = 0; b < input_dims->n; b++) {
        for (int32_t oy = 0; oy < output_dims->h; oy++) {
            const int32_t y0 = oy * params->stride_h - params->pad_h;
            for (int32_t ox = 0; ox < output_dims->w; ox++) {
                const int32_t x0 = ox * params->stride_w - params->pad_w;
                for (int32_t oc = 0; oc < out_c; oc++) {
                    int32_t acc = bias != 0 ? bias[oc] : 0;
                    for (int32_t ky = 0; ky < k_h; ky++) {
                        const int32_t iy = y0 + ky;
                        if (iy < 0 || iy >= in_h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < k_w; kx++) {
                            const int32_t ix = x0 + kx;
                            if (ix < 0 || ix >= in_w) {
                                continue;
                            }
                            const int8_t *pixel = input + ((b * in_h + iy) * in_w + ix) * in_c;
                            const int8_t *taps = filter + ((oc * k_h + ky) * k_w + kx) * in_c;
                            for (int32_t ic = 0; ic < in_c; ic++) {
                                acc += ((int32_t)pixel[ic] + params->input_offset) * taps[ic];
                            }
                        }
                    }
                    acc = kb_requantize(acc, multipliers[oc], shifts[oc]) + params->output_offset;
                    const int32_t at = ((b * output_dims->h + oy) * output_dims->w + ox) * out_c;
                    output[at + oc] = (int8_t)clamp(acc, params->act_min, params->act_max);
                }
            }
        }
    }
    return KB_OK;
}

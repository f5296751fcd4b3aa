/*
 * TensorFlow Lite's fixed-point requantization, written out in portable C.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The result is bit-exact with gemmlowp's SaturatingRoundingDoublingHighMul and
 * RoundingDivideByPOT, which Arm CMSIS-NN's arm_nn_requantize reproduces.
 */
#include "kb_kernels.h"

int32_t kb_saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    const int64_t product = (int64_t)a * (int64_t)b;
    const int64_t nudge = product >= 0 ? (INT64_C(1) << 30) : (1 - (INT64_C(1) << 30));
    return (int32_t)((product + nudge) / (INT64_C(1) << 31));
}

int32_t kb_rounding_divide_by_pot(int32_t x, int32_t exponent) {
    const int32_t mask = (int32_t)((UINT32_C(1) << exponent) - 1u);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t kb_requantize(int32_t value, int32_t multiplier, int32_t shift) {
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    const int32_t scaled = (int32_t)((uint32_t)value << left);
    return kb_rounding_divide_by_pot(kb_saturating_rounding_doubling_high_mul(scaled, multiplier),
                                     right);
}

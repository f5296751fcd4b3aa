/*
 * Measurement framing in assembly so it is the same instructions with every compiler.
 *
 * hpx_calibration_pair: an empty begin/end pair on the reserved slot. Between the two counter
 * reads it executes what a layer measurement executes around an empty layer, so the host
 * subtracts its count from every layer entry.
 *
 * hpx_measure_whole: begin, hpx_engine_invoke(HPX_MODE_WHOLE), end, on the reserved slot.
 * Beyond the calibrated pair it adds exactly 3 instructions (movs r0, bl, mov r4) plus the
 * engine's invoke.
 */
#include "hpx_counter.h"

    .syntax unified
    .thumb
    .text

    .global hpx_calibration_pair
    .type hpx_calibration_pair, %function
    .thumb_func
hpx_calibration_pair:
    push {r4, lr}
    mov r0, #HPX_RESERVED_SLOT
    bl hpx_layer_begin
    mov r0, #HPX_RESERVED_SLOT
    bl hpx_layer_end
    pop {r4, pc}
    .size hpx_calibration_pair, . - hpx_calibration_pair

    .global hpx_measure_whole
    .type hpx_measure_whole, %function
    .thumb_func
hpx_measure_whole:
    push {r4, lr}
    mov r0, #HPX_RESERVED_SLOT
    bl hpx_layer_begin
    movs r0, #0
    bl hpx_engine_invoke
    mov r4, r0
    mov r0, #HPX_RESERVED_SLOT
    bl hpx_layer_end
    mov r0, r4
    pop {r4, pc}
    .size hpx_measure_whole, . - hpx_measure_whole

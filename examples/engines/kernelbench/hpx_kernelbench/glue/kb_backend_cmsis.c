/*
 * Backends "cmsis_nn" (Arm CMSIS-NN) and "ns" (Ambiq ns-cmsis-nn, KB_NS_CMSIS_NN defined): the
 * same calls through arm_convolve_wrapper_s8 and arm_fully_connected_s8.
 *
 * Precomputed per layer at init, as TensorFlow Lite Micro does: the fully connected kernel
 * sums (arm_vector_sum_s8, when the library asks for a buffer: on MVE builds), and for
 * ns-cmsis-nn the convolution weight sums its wrapper takes as weight_sum_ctx
 * (arm_convolve_weight_sum; NO_IMPL on builds without MVE, where they are not read).
 */
#include "arm_nnfunctions.h"
#include "kb_backend.h"

static cmsis_nn_context contexts[KB_MAX_LAYERS];
#ifdef KB_NS_CMSIS_NN
static cmsis_nn_context weight_sums[KB_MAX_LAYERS];
#endif
static uint32_t scratch_used;

static cmsis_nn_conv_params conv_params(const kb_layer_t *l) {
    cmsis_nn_conv_params p;
    p.input_offset = l->input_offset;
    p.output_offset = l->output_offset;
    p.stride.h = l->stride_h;
    p.stride.w = l->stride_w;
    p.padding.h = l->pad_h;
    p.padding.w = l->pad_w;
    p.dilation.h = 1;
    p.dilation.w = 1;
    p.activation.min = kb_model.act_min;
    p.activation.max = kb_model.act_max;
    return p;
}

static int prepare_conv(uint32_t index, const kb_layer_t *l) {
    const cmsis_nn_conv_params params = conv_params(l);
    const cmsis_nn_dims in = {l->in_n, l->in_h, l->in_w, l->in_c};
    const cmsis_nn_dims filter = {l->out_c, l->k_h, l->k_w, l->in_c};
    const cmsis_nn_dims out = {l->in_n, l->out_h, l->out_w, l->out_c};
    const int32_t size = arm_convolve_wrapper_s8_get_buffer_size(&params, &in, &filter, &out);
    if (size < 0 || (uint32_t)size > kb_model.scratch_size) {
        return 1;
    }
    contexts[index].buf = size > 0 ? kb_model.scratch : NULL;
    contexts[index].size = size;
    scratch_used = (uint32_t)size > scratch_used ? (uint32_t)size : scratch_used;
#ifdef KB_NS_CMSIS_NN
    const int32_t sums = arm_convolve_s8_get_weights_sum_size(&out);
    if (sums < 0 || sums > l->out_c * (int32_t)sizeof(int32_t)) {
        return 1;
    }
    weight_sums[index].buf = l->sums; /* valid on every build, as the wrapper requires */
    weight_sums[index].size = sums;
    const arm_cmsis_nn_status done = arm_convolve_weight_sum(
        l->sums, l->weights, &in, &filter, &out, l->input_offset, l->bias);
    if (done != ARM_CMSIS_NN_SUCCESS && done != ARM_CMSIS_NN_NO_IMPL_ERROR) {
        return 1;
    }
#endif
    return 0;
}

static int prepare_fc(uint32_t index, const kb_layer_t *l) {
    const int32_t depth = l->in_h * l->in_w * l->in_c;
    const cmsis_nn_dims filter = {depth, 1, 1, l->out_c};
    const int32_t size = arm_fully_connected_s8_get_buffer_size(&filter);
    contexts[index].buf = NULL;
    contexts[index].size = 0;
    if (size <= 0) {
        return 0;
    }
    if (size > l->out_c * (int32_t)sizeof(int32_t)) {
        return 1;
    }
    arm_vector_sum_s8(l->sums, depth, l->out_c, l->weights, l->input_offset, 0, l->bias);
    contexts[index].buf = l->sums;
    contexts[index].size = size;
    return 0;
}

int kb_backend_prepare(uint32_t index, const kb_layer_t *layer) {
    if (index >= KB_MAX_LAYERS) {
        return 1;
    }
    return layer->kind == KB_OP_CONV2D ? prepare_conv(index, layer) : prepare_fc(index, layer);
}

static int run_conv(uint32_t index, const kb_layer_t *l, const int8_t *input, int8_t *output) {
    const cmsis_nn_conv_params params = conv_params(l);
    const cmsis_nn_per_channel_quant_params quant = {(int32_t *)l->multipliers,
                                                     (int32_t *)l->shifts};
    const cmsis_nn_dims in = {l->in_n, l->in_h, l->in_w, l->in_c};
    const cmsis_nn_dims filter = {l->out_c, l->k_h, l->k_w, l->in_c};
    const cmsis_nn_dims bias = {1, 1, 1, l->out_c};
    const cmsis_nn_dims out = {l->in_n, l->out_h, l->out_w, l->out_c};
#ifdef KB_NS_CMSIS_NN
    return arm_convolve_wrapper_s8(&contexts[index], &weight_sums[index], &params, &quant, &in,
                                   input, &filter, l->weights, &bias, l->bias, &out, output)
           != ARM_CMSIS_NN_SUCCESS;
#else
    return arm_convolve_wrapper_s8(&contexts[index], &params, &quant, &in, input, &filter,
                                   l->weights, &bias, l->bias, &out, output)
           != ARM_CMSIS_NN_SUCCESS;
#endif
}

static int run_fc(uint32_t index, const kb_layer_t *l, const int8_t *input, int8_t *output) {
    const int32_t depth = l->in_h * l->in_w * l->in_c;
    cmsis_nn_fc_params params;
    params.input_offset = l->input_offset;
    params.filter_offset = 0;
    params.output_offset = l->output_offset;
    params.activation.min = kb_model.act_min;
    params.activation.max = kb_model.act_max;
    const cmsis_nn_per_tensor_quant_params quant = {l->multipliers[0], l->shifts[0]};
    const cmsis_nn_dims in = {l->in_n, 1, 1, depth};
    const cmsis_nn_dims filter = {depth, 1, 1, l->out_c};
    const cmsis_nn_dims bias = {1, 1, 1, l->out_c};
    const cmsis_nn_dims out = {l->in_n, 1, 1, l->out_c};
    return arm_fully_connected_s8(&contexts[index], &params, &quant, &in, input, &filter,
                                  l->weights, &bias, l->bias, &out, output)
           != ARM_CMSIS_NN_SUCCESS;
}

int kb_backend_run(uint32_t index, const kb_layer_t *l, const int8_t *input, int8_t *output) {
    return l->kind == KB_OP_CONV2D ? run_conv(index, l, input, output)
                                   : run_fc(index, l, input, output);
}

uint32_t kb_backend_scratch_used(void) {
    return scratch_used;
}

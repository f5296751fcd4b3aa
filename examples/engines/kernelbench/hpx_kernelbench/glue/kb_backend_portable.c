/*
 * Backend "portable": the pinned kernelbench-kernels library, plain C.
 */
#include "kb_backend.h"
#include "kb_kernels.h"

int kb_backend_prepare(uint32_t index, const kb_layer_t *layer) {
    (void)index;
    (void)layer;
    return 0;
}

int kb_backend_run(uint32_t index, const kb_layer_t *l, const int8_t *input, int8_t *output) {
    (void)index;
    if (l->kind == KB_OP_CONV2D) {
        const kb_conv_params params = {l->stride_h, l->stride_w, l->pad_h, l->pad_w,
                                       l->input_offset, l->output_offset,
                                       kb_model.act_min, kb_model.act_max};
        const kb_dims in = {l->in_n, l->in_h, l->in_w, l->in_c};
        const kb_dims filter = {l->out_c, l->k_h, l->k_w, l->in_c};
        const kb_dims out = {l->in_n, l->out_h, l->out_w, l->out_c};
        return kb_conv2d_s8(&params, l->multipliers, l->shifts, &in, input, &filter, l->weights,
                            l->bias, &out, output);
    }
    const kb_fc_params params = {l->input_offset, l->output_offset, kb_model.act_min,
                                 kb_model.act_max, l->multipliers[0], l->shifts[0]};
    return kb_fully_connected_s8(&params, l->in_n, l->in_h * l->in_w * l->in_c, l->out_c, input,
                                 l->weights, l->bias, output);
}

uint32_t kb_backend_scratch_used(void) {
    return 0u;
}

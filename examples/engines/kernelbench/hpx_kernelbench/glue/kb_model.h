/*
 * The benchmark as the glue sees it: a table of kernel calls with their constants, generated
 * by hpx_kernelbench (kb_model.c) from the YAML file and the seed.
 */
#ifndef KB_MODEL_H
#define KB_MODEL_H

#include <stdint.h>

#define KB_MAX_LAYERS 240

typedef enum {
    KB_OP_CONV2D = 0,
    KB_OP_FULLY_CONNECTED = 1,
} kb_op_t;

typedef struct {
    const char *name; /* the YAML name: the layer's name in the results */
    const char *op;
    kb_op_t kind;
    int32_t in_n, in_h, in_w, in_c; /* a fully connected input is [n, 1, 1, depth] */
    int32_t out_h, out_w, out_c;    /* a fully connected output is [n, 1, 1, units] */
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;
    int32_t input_offset;  /* -(input zero point) */
    int32_t output_offset; /* output zero point */
    const int8_t *weights;
    const int32_t *bias;
    const int32_t *multipliers; /* one per output channel (conv2d) or one (fully connected) */
    const int32_t *shifts;
    int32_t *sums; /* out_c int32 an optimized library precomputes into, or 0 */
} kb_layer_t;

typedef struct {
    const kb_layer_t *layers;
    uint32_t count;
    const int8_t *input;
    uint32_t input_size;
    uint32_t output_size;
    int8_t *buffers[2]; /* ping-pong activations: call i reads buffers[i % 2] */
    int8_t *scratch;    /* working memory of an optimized library, or 0 */
    uint32_t scratch_size;
    int32_t act_min, act_max;
} kb_model_t;

extern const kb_model_t kb_model;

#endif

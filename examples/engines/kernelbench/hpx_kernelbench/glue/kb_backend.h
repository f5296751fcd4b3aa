/*
 * What a kernel backend provides to the engine glue (kb_engine.c): one file per backend.
 */
#ifndef KB_BACKEND_H
#define KB_BACKEND_H

#include <stdint.h>

#include "kb_model.h"

/* Once per layer before any inference: sizes, precomputed sums. Non-zero: refused. */
int kb_backend_prepare(uint32_t index, const kb_layer_t *layer);
/* One kernel call; non-zero when the kernel refused its arguments. */
int kb_backend_run(uint32_t index, const kb_layer_t *layer, const int8_t *input, int8_t *output);
/* The largest scratch buffer a layer asked for, in bytes. */
uint32_t kb_backend_scratch_used(void);

#endif

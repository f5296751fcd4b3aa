/*
 * TFLM-family glue shared by every engine built on TFLite Micro's MicroInterpreter (upstream
 * TFLM, heliaRT). The generated files (model array, op resolver, inputs, layer table,
 * hpx_tflm_config.h) fill in what is model-specific; hpx_tflm_runner.cc implements the core
 * harness's engine interface (hpx_engine.h) on top of them.
 */
#ifndef HPX_TFLM_GLUE_H
#define HPX_TFLM_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include "hpx_tflm_config.h"
#include "hpx_tflm_data.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"

using HpxOpResolver = tflite::MicroMutableOpResolver<HPX_TFLM_OP_COUNT>;

/* Generated (hpx_tflm_resolver.inc, included by the runner): registers the model's operators;
 * 0 on success, else 1 + the failing entry. */
static int hpx_tflm_register_ops(HpxOpResolver& resolver);

/* Error codes the glue returns to the harness (reported in ERROR records). */
#define HPX_TFLM_ERR_SCHEMA 101       /* model schema version unsupported */
#define HPX_TFLM_ERR_RESOLVER 102     /* an operator could not be registered */
#define HPX_TFLM_ERR_ALLOCATE 103     /* AllocateTensors failed: arena too small? */
#define HPX_TFLM_ERR_INPUT_SHAPE 104  /* input tensor size differs from the generated data */
#define HPX_TFLM_ERR_INVOKE 105       /* Invoke() failed */
#define HPX_TFLM_ERR_NOT_READY 106    /* called before a successful init */
#define HPX_TFLM_ERR_RESOURCES 107    /* MicroResourceVariables could not be created */

#endif

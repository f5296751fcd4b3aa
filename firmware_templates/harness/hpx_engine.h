/*
 * The interface between the one core harness and an engine's glue.
 *
 * The harness calls, in order:
 *   hpx_engine_init()                       once; load the model, allocate
 *   hpx_engine_describe()                   once; call hpx_report_layer() for every layer
 *   hpx_engine_prepare_input(iteration)     before every inference, never timed
 *   hpx_engine_invoke(mode)                 one inference
 *   hpx_engine_memory(moment)               optional (weak): the uncounted memory pass asks
 *                                           for the engine's arena figures (hpx_memory.h)
 *   hpx_engine_check()                      with HPX_CHECK_LAYERS: the uncounted layer check
 *   hpx_engine_finish()                     once at the end; report outputs and metrics
 *
 * In HPX_MODE_LAYERS the engine calls hpx_layer_begin(i)/hpx_layer_end(i) (hpx_counter.h)
 * around layer i.
 *
 * Firmware built with HPX_CHECK_LAYERS (--check-layers) calls hpx_engine_check() once, after
 * every counted pass and never timed: one inference in which the engine calls
 * hpx_check_layer() (hpx_check.h) after each layer with its outputs. It is a function of its
 * own so that the counted hpx_engine_invoke() stays instruction for instruction the same.
 * The memory pass (HPX_MEMORY_PASS) calls hpx_engine_invoke(HPX_MODE_LAYERS) once more with
 * every slot disabled: the engine needs nothing new for its stack to be measured.
 * In HPX_MODE_WHOLE the harness times the whole call; the engine should detach its per-layer
 * hooks (calls made anyway are ignored, but their cost lands in the count).
 * Every function returns 0 on success or an engine-defined non-zero error code, which the
 * harness reports in an ERROR record.
 */
#ifndef HPX_ENGINE_H
#define HPX_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "hpx_check.h"
#include "hpx_counter.h"
#include "hpx_memory.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HPX_MODE_WHOLE = 0,  /* uninstrumented whole-inference measurement */
    HPX_MODE_LAYERS = 1, /* per-layer instrumented pass */
} hpx_mode_t;

int hpx_engine_init(void);
int hpx_engine_describe(void);
int hpx_engine_prepare_input(uint32_t iteration);
int hpx_engine_invoke(hpx_mode_t mode);
int hpx_engine_finish(void);
int hpx_engine_check(void); /* only with HPX_CHECK_LAYERS */

/* Reporting helpers an engine may call (any time after init). */
void hpx_report_layer(uint32_t index, const char *name, const char *op);
void hpx_report_metric(const char *name, uint64_t value);
void hpx_report_output(uint32_t tensor, const uint8_t *data, size_t size);
/* A file for the result bundle (e.g. an ETDump): its bytes at offset, in as many calls as
 * needed, then hpx_report_file_end() once with its whole size. */
void hpx_report_file(const char *name, size_t offset, const uint8_t *data, size_t size);
void hpx_report_file_end(const char *name, size_t size);
/* Plain text for the log (e.g. an engine's DebugLog); the host keeps it beside the records. */
void hpx_print(const char *text);

#ifdef __cplusplus
}
#endif

#endif

/*
 * The validation pass (HPX_VALIDATE_PASS, `hpx validate`): after every other pass, the
 * firmware runs each sample the host put in its window through the model and sends the
 * outputs back, so one build serves a whole data set.
 *
 * The window (hpx_validate_window: initialized data the emulated boards load in place, whose
 * bytes the host replaces in a copy of the ELF before each run) starts with a header of
 * little-endian words:
 *
 *   magic 'HPXV' | version 1 | samples | sample_bytes | first (the data set's index of sample 0)
 *
 * then the samples, back to back, each the model's input tensors in order. A window without
 * the magic holds no samples: the pass says VALIDATE samples=0 and ends. Per sample the
 * harness copies each input into the tensor the engine names (hpx_engine_tensor), runs one
 * uninstrumented inference and sends each output as VOUT records; VALIDEND counts them.
 * Nothing here is timed: the counted passes before it ran as in any build.
 */
#ifndef HPX_VALIDATE_H
#define HPX_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPX_VALIDATE_MAGIC 0x56585048u /* "HPXV" */
#define HPX_VALIDATE_VERSION 1u
#define HPX_VALIDATE_HEADER_WORDS 5u
#define HPX_ERR_VALIDATE_WINDOW 20 /* the header promises more than the window holds */
#define HPX_ERR_VALIDATE_INPUTS 21 /* the samples' size is not the inputs' */

#define HPX_TENSOR_INPUT 0u
#define HPX_TENSOR_OUTPUT 1u

/* The engine's tensor `index` of a direction: its buffer and size; non-zero past the last.
 * Weak in the harness (no tensors), so engines without validation still link. */
int hpx_engine_tensor(uint32_t direction, uint32_t index, uint8_t **data, size_t *size);

int hpx_validate_pass(void);

#ifdef __cplusplus
}
#endif

#endif

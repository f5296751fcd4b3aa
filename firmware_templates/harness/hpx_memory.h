/*
 * The memory pass: an uncounted inference after the measured ones (and before the layer
 * check) that measures what the firmware really uses, so no counted instruction moves.
 *
 * Stack: the harness paints the free main stack with a pattern before the inference and, at
 * every layer's begin and end, finds the deepest word overwritten since it last looked and
 * paints again. Each layer's depth goes out in a MEMLAYER record (bytes below the stack's top,
 * the harness's frames under main() included, since an application has its own); the deepest
 * point of the whole inference in MEMEND. Interrupts are masked during the inference, so no
 * exception frame lands in the figure. The hooks' own frames sit below the engine's call and
 * are painted over: a layer that stays shallower than them reads as their depth ("floor").
 *
 * Engines add what only they know through hpx_engine_memory() (a weak default does nothing),
 * which the harness calls before the inference (HPX_MEMORY_BEFORE), after every layer (the
 * layer's index) and after the inference (HPX_MEMORY_AFTER). In it the engine may
 *   - hpx_memory_watch(): name a buffer (an arena's planned part) that the harness paints at
 *     once and reads after every layer: its high-water, the bytes from its start up to the
 *     last one written so far, plus `base` (bytes of it in use all along), per layer and whole;
 *     its address goes out as "<name>.at", for the host to find its region and symbol;
 *   - hpx_memory_report(): send a figure read from its own records (an allocator's used
 *     bytes): for the current layer (MEMUSE), or before/after the inference, for the whole
 *     model (MEMFACT).
 * Names are the engine's ("arena", "temp", "arena.size"); docs/firmware-harness.md lists the
 * ones hpx reads.
 */
#ifndef HPX_MEMORY_H
#define HPX_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPX_MEMORY_BEFORE 0xFFFFFFFEu
#define HPX_MEMORY_AFTER 0xFFFFFFFFu
#define HPX_MEMORY_WATCHES 4u

/* The engine's side (optional): see above. */
void hpx_engine_memory(uint32_t moment);

void hpx_memory_watch(const char *name, void *start, size_t bytes, size_t base);
void hpx_memory_report(const char *name, uint64_t bytes);

/* The harness's side: the pass (0, or the engine's error code) and the layer hooks that
 * hpx_layer_begin/hpx_layer_end call while the pass runs. */
extern volatile uint8_t hpx_memory_active;
int hpx_memory_pass(void);
void hpx_memory_layer_begin(uint32_t index);
void hpx_memory_layer_end(uint32_t index);

#ifdef __cplusplus
}
#endif

#endif

/* The memory pass (see hpx_memory.h). Runs only after the counted passes. */
#include "hpx_memory.h"

#include <stddef.h>

#include "hpx_config.h"
#include "hpx_engine.h"
#include "hpx_layers.h"
#include "hpx_platform.h"
#include "hpx_wire.h"

#ifndef HPX_MEMORY_PASS
#define HPX_MEMORY_PASS 0
#endif
/* Not a byte repeated, so no compiler turns a painting loop into memset (whose own frame
 * would be painted over), and unlikely as data. */
#define HPX_MEMORY_PAINT 0xC3A5E1D7u

volatile uint8_t hpx_memory_active;

typedef struct {
    const char *name;
    volatile uint32_t *start;
    uint32_t words;
    uint32_t base;
} hpx_watch_t;

static hpx_watch_t watches[HPX_MEMORY_WATCHES];
static uint32_t watch_count;
static volatile uint32_t *stack_low;
static uintptr_t stack_top;
static uintptr_t painted_to; /* the top of the painted part of the stack (exclusive) */
static uint32_t deepest;     /* bytes below the top, the whole inference */
static uint32_t moment = HPX_MEMORY_BEFORE;
static uint32_t sent_layers, sent_uses, sent_facts;

__attribute__((weak)) void hpx_engine_memory(uint32_t when) {
    (void)when;
}

static inline __attribute__((always_inline)) uintptr_t current_sp(void) {
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/* Paint from the stack's limit up to this function's own stack pointer: everything below the
 * caller's frames, nothing in use. Not inlined, so the pointer is read where it paints. */
static __attribute__((noinline)) void paint_stack(void) {
    uintptr_t sp = current_sp() & ~(uintptr_t)3u;
    for (volatile uint32_t *p = stack_low; (uintptr_t)p < sp; p++) {
        *p = HPX_MEMORY_PAINT;
    }
    painted_to = sp;
}

/* Bytes below the top of the deepest word written since the last paint; *floor: the depth
 * this scan could see no deeper than (the hooks' frames). */
static __attribute__((noinline)) uint32_t scan_stack(uint32_t *floor) {
    uintptr_t sp = current_sp() & ~(uintptr_t)3u;
    uintptr_t limit = sp < painted_to ? sp : painted_to;
    volatile uint32_t *p = stack_low;
    while ((uintptr_t)p < limit && *p == HPX_MEMORY_PAINT) {
        p++;
    }
    *floor = (uint32_t)(stack_top - limit);
    return (uint32_t)(stack_top - (uintptr_t)p);
}

static void send_use(uint32_t layer, const char *name, uint64_t bytes) {
    hpx_wire_begin("MEMUSE");
    hpx_wire_u64("idx", layer);
    hpx_wire_str("name", name);
    hpx_wire_u64("bytes", bytes);
    hpx_wire_end();
    sent_uses++;
}

static void send_fact(const char *name, uint64_t bytes) {
    hpx_wire_begin("MEMFACT");
    hpx_wire_str("name", name);
    hpx_wire_u64("bytes", bytes);
    hpx_wire_end();
    sent_facts++;
}

void hpx_memory_report(const char *name, uint64_t bytes) {
    if (moment == HPX_MEMORY_BEFORE || moment == HPX_MEMORY_AFTER) {
        send_fact(name, bytes);
    } else {
        send_use(moment, name, bytes);
    }
}

/* "<name>.at": where a buffer starts, so the host finds the region and symbol it is in. */
static void send_at(const char *name, const void *start) {
    char key[64];
    size_t n = 0;
    for (; name[n] != '\0' && n < sizeof key - 4u; n++) {
        key[n] = name[n];
    }
    key[n++] = '.';
    key[n++] = 'a';
    key[n++] = 't';
    key[n] = '\0';
    send_fact(key, (uintptr_t)start);
}

void hpx_memory_watch(const char *name, void *start, size_t bytes, size_t base) {
    if (watch_count >= HPX_MEMORY_WATCHES || start == NULL) {
        return;
    }
    send_at(name, start);
    hpx_watch_t *w = &watches[watch_count++];
    w->name = name;
    w->start = (volatile uint32_t *)(((uintptr_t)start + 3u) & ~(uintptr_t)3u);
    w->words = (uint32_t)(bytes / 4u);
    w->base = (uint32_t)base;
    for (uint32_t i = 0; i < w->words; i++) {
        w->start[i] = HPX_MEMORY_PAINT;
    }
}

/* Bytes from the watch's start up to its last word written, plus its base. */
static uint32_t watch_high(const hpx_watch_t *w) {
    uint32_t n = w->words;
    while (n > 0u && w->start[n - 1u] == HPX_MEMORY_PAINT) {
        n--;
    }
    return w->base + 4u * n;
}

static void note_depth(uint32_t depth) {
    deepest = depth > deepest ? depth : deepest;
}

void hpx_memory_layer_begin(uint32_t index) {
    (void)index;
    uint32_t floor;
    note_depth(scan_stack(&floor)); /* the engine's code between two layers */
    paint_stack();
}

void hpx_memory_layer_end(uint32_t index) {
    uint32_t floor;
    uint32_t depth = scan_stack(&floor);
    note_depth(depth);
    hpx_wire_begin("MEMLAYER");
    hpx_wire_u64("idx", index);
    hpx_wire_u64("stack", depth);
    hpx_wire_u64("floor", floor);
    hpx_wire_end();
    sent_layers++;
    for (uint32_t i = 0; i < watch_count; i++) {
        send_use(index, watches[i].name, watch_high(&watches[i]));
    }
    moment = index;
    hpx_engine_memory(index);
    moment = HPX_MEMORY_AFTER;
    paint_stack();
}

/* The heap break, when anything linked an sbrk (malloc does): newlib's or picolibc's. */
extern void *_sbrk(ptrdiff_t increment) __attribute__((weak));
extern void *sbrk(ptrdiff_t increment) __attribute__((weak));
extern char end __attribute__((weak));

static uintptr_t heap_break(void) {
    void *now = _sbrk ? _sbrk(0) : (sbrk ? sbrk(0) : NULL);
    return (uintptr_t)now;
}

static uint32_t irq_mask(void) {
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    return primask;
}

static void irq_restore(uint32_t primask) {
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

static int measured_inference(uint32_t *base) {
    hpx_slots_reset(0); /* every layer hook takes the disabled path, which calls ours */
    uint32_t primask = irq_mask();
    paint_stack();
    *base = (uint32_t)(stack_top - current_sp());
    hpx_memory_active = 1u;
    int rc = hpx_engine_invoke(HPX_MODE_LAYERS);
    hpx_memory_active = 0u;
    uint32_t floor;
    note_depth(scan_stack(&floor)); /* after the last layer */
    irq_restore(primask);
    return rc;
}

static void send_heap(uintptr_t before, uintptr_t after) {
    if (after == 0u) {
        return; /* no sbrk linked: nothing can allocate from the heap */
    }
    if (&end != NULL && after >= (uintptr_t)&end) {
        send_fact("heap", after - (uintptr_t)&end);
    }
    send_fact("heap.inference", after - before);
}

static void send_end(uint32_t base) {
    hpx_wire_begin("MEMEND");
    hpx_wire_u64("stack", deepest);
    hpx_wire_u64("base", base);
    hpx_wire_u64("size", (uint64_t)(stack_top - (uintptr_t)stack_low));
    hpx_wire_u64("layers", sent_layers);
    hpx_wire_u64("uses", sent_uses);
    hpx_wire_u64("facts", sent_facts);
    hpx_wire_end();
}

int hpx_memory_pass(void) {
    if (!HPX_MEMORY_PASS) {
        return 0; /* the same main() either way: nothing counted before this moves */
    }
    uintptr_t low = 0u;
    hpx_platform_stack(&low, &stack_top);
    stack_low = (volatile uint32_t *)((low + 3u) & ~(uintptr_t)3u);
    moment = HPX_MEMORY_BEFORE;
    hpx_engine_memory(HPX_MEMORY_BEFORE); /* watches are painted before the input is copied */
    int rc = hpx_engine_prepare_input(0);
    if (rc != 0) {
        return rc;
    }
    uintptr_t heap_before = heap_break();
    uint32_t base = 0u;
    rc = measured_inference(&base);
    if (rc != 0) {
        return rc;
    }
    moment = HPX_MEMORY_AFTER;
    for (uint32_t i = 0; i < watch_count; i++) {
        send_fact(watches[i].name, watch_high(&watches[i]));
    }
    hpx_engine_memory(HPX_MEMORY_AFTER);
    send_heap(heap_before, heap_break());
    send_end(base);
    return 0;
}

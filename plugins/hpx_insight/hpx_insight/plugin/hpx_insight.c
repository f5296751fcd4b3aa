/*
 * hpx's instruction-profile plugin for QEMU's TCG (system emulation, one Cortex-M vCPU).
 *
 * It counts every instruction's executions exactly (an inline add before each instruction:
 * instructions cut short by an I/O access are counted once, as QEMU re-runs them with memory
 * instrumentation only), the memory each one touched (a callback per access: the region of the
 * board's map, loads and stores, bytes) and, for the last instruction of every translation
 * block, how often execution fell through to the next address (a callback per block: taken and
 * not-taken branches). Counts are cut into the harness's own measurement windows: the SysTick
 * reads (loads of SYST_CVR) inside hpx_layer_begin / hpx_layer_end delimit what SysTick counts,
 * and the stores to hpx_slot_open[index] in the same functions name the layer. So a layer's
 * window here holds exactly the instructions its SysTick span holds; SysTick_Handler's are left
 * out everywhere, as the counter backend subtracts them. Nothing here changes what the guest
 * executes or when: under -icount the timed counts of the same ELF are the same with or without
 * the plugin.
 *
 * Arguments (key=value): out=FILE, begin=LO:HI, end=LO:HI, skip=LO:HI (address ranges,
 * half-open), open=ADDR:SLOTS (hpx_slot_open and the number of slots), cvr=ADDR, region=LO:HI
 * (repeated, at most 15: the first range holding an address is its region; every other address
 * is the last region), static=FILE (addresses, one hexadecimal number a line, whose memory use
 * hpx counts from the code: they get no callback), icache=SIZE:WAYS:LINE and dcache=SIZE:WAYS:LINE
 * (the silicon board's caches to simulate: hpx_cache.h), nocache=K (repeated: range K is never
 * cached on the silicon board, so it stays out of the shared data cache), probe=1 (report that
 * the plugin loads, then refuse to install).
 *
 * Per instruction and range the file gives loads, stores, bytes read and written, then the data
 * cache's read and write misses in the shared cache and in the range's own; per instruction
 * ending a translation block, the instruction cache's misses of that block.
 *
 * SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later
 * (either license, at your choice: the plugin is loaded into QEMU, which is GPL-2.0-or-later)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpx_cache.h"
#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = HPX_QEMU_PLUGIN_VERSION;

#define MAX_REGIONS 16 /* the named ranges (buffers, the board's regions) and "elsewhere" */
#define STATS 8 /* loads, stores, bytes read, written; misses: shared read, write, alone */
#define ROLE_BEGIN 1
#define ROLE_END 2

typedef struct {
    uint64_t lo, hi;
} range_t;

/* One guest instruction address, shared by every translation block that holds it. */
typedef struct rec {
    uint64_t count; /* executions: the inline add */
    uint64_t snap;  /* count at the last cut */
    uint64_t mem_seen;
    uint64_t fall, fall_snap, fall_seen;
    uint64_t imiss, imiss_snap; /* instruction-cache misses of the block this ends */
    uint64_t *mem, *mem_snap;   /* [MAX_REGIONS][STATS] */
    uint32_t addr;
    uint8_t size, role;
} rec_t;

typedef struct {
    uint64_t start, next;
    rec_t *last;
} tb_t;

/* What one window (or slot) gathered for one address. */
typedef struct {
    uint32_t addr;
    uint8_t size;
    uint64_t count, fall, imiss;
    uint64_t *mem;
} agg_t;

/* Address -> value, open addressing; grows at half full. */
typedef struct {
    uint32_t *keys;
    void **vals;
    size_t used, cap;
} map_t;

typedef struct {
    map_t hist;
    uint64_t *windows;
    size_t n_windows, cap_windows;
    uint64_t current;
} slot_t;

static char *out_path;
static range_t begin_fn, end_fn, skip_fn, regions[MAX_REGIONS];
static unsigned n_regions;
static uint64_t open_base, cvr_addr;
static unsigned n_slots;
static uint32_t *static_insns; /* sorted */
static size_t n_static;
static cache_t icache, dcache, dalone[MAX_REGIONS];
static uint8_t uncached[MAX_REGIONS];

static map_t recs; /* address -> rec_t */
static rec_t **rec_list;
static size_t n_recs, cap_recs;
static tb_t *prev_tb;

static slot_t *slots; /* n_slots + 1: the last is the first window of the reserved slot */
static map_t pending;
static unsigned *open_set;
static unsigned n_open;
static int pending_begin = -1;
static int reserved_split;

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (p == NULL) {
        fputs("hpx-insight: out of memory\n", stderr);
        abort();
    }
    return p;
}

static size_t hash(uint32_t addr, size_t cap) {
    return (size_t)((addr >> 1) * 2654435761u) & (cap - 1);
}

static size_t probe(const map_t *m, uint32_t addr) {
    size_t j = hash(addr, m->cap);
    while (m->vals[j] != NULL && m->keys[j] != addr) {
        j = (j + 1) & (m->cap - 1);
    }
    return j;
}

static void map_grow(map_t *m) {
    map_t bigger = {0};
    bigger.cap = m->cap ? 2 * m->cap : 1024;
    bigger.keys = xcalloc(bigger.cap, sizeof *bigger.keys);
    bigger.vals = xcalloc(bigger.cap, sizeof *bigger.vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] != NULL) {
            size_t j = probe(&bigger, m->keys[i]);
            bigger.keys[j] = m->keys[i];
            bigger.vals[j] = m->vals[i];
        }
    }
    bigger.used = m->used;
    free(m->keys);
    free(m->vals);
    *m = bigger;
}

/* The value at ``addr``, made by ``make`` when absent. */
static void *map_get(map_t *m, uint32_t addr, void *(*make)(uint32_t, uint8_t), uint8_t size) {
    if (2 * (m->used + 1) > m->cap) {
        map_grow(m);
    }
    size_t j = probe(m, addr);
    if (m->vals[j] == NULL) {
        m->keys[j] = addr;
        m->vals[j] = make(addr, size);
        m->used++;
    }
    return m->vals[j];
}

static void *make_agg(uint32_t addr, uint8_t size) {
    agg_t *a = xcalloc(1, sizeof *a);
    a->addr = addr;
    a->size = size;
    return a;
}

static agg_t *agg_at(map_t *m, uint32_t addr, uint8_t size) {
    return map_get(m, addr, make_agg, size);
}

static void map_clear(map_t *m) {
    for (size_t i = 0; i < m->cap; i++) {
        agg_t *a = m->vals[i];
        if (a != NULL) {
            free(a->mem);
            free(a);
            m->vals[i] = NULL;
        }
    }
    m->used = 0;
}

static void add_mem(agg_t *into, const uint64_t *mem) {
    if (mem == NULL) {
        return;
    }
    if (into->mem == NULL) {
        into->mem = xcalloc(MAX_REGIONS * STATS, sizeof(uint64_t));
    }
    for (unsigned k = 0; k < MAX_REGIONS * STATS; k++) {
        into->mem[k] += mem[k];
    }
}

/* Move what every instruction did since the last cut into the pending window. */
static void cut(void) {
    uint64_t delta_mem[MAX_REGIONS * STATS];
    for (size_t i = 0; i < n_recs; i++) {
        rec_t *r = rec_list[i];
        uint64_t d = r->count - r->snap;
        if (d == 0) {
            continue;
        }
        agg_t *a = agg_at(&pending, r->addr, r->size);
        a->count += d;
        a->fall += r->fall - r->fall_snap;
        a->imiss += r->imiss - r->imiss_snap;
        r->snap = r->count;
        r->fall_snap = r->fall;
        r->imiss_snap = r->imiss;
        if (r->mem != NULL) {
            for (unsigned k = 0; k < MAX_REGIONS * STATS; k++) {
                delta_mem[k] = r->mem[k] - r->mem_snap[k];
                r->mem_snap[k] = r->mem[k];
            }
            add_mem(a, delta_mem);
        }
    }
}

/* The pending window belongs to every open slot (layers may nest). */
static void settle(void) {
    for (unsigned o = 0; o < n_open; o++) {
        slot_t *s = &slots[open_set[o]];
        for (size_t i = 0; i < pending.cap; i++) {
            agg_t *p = pending.vals[i];
            if (p == NULL) {
                continue;
            }
            agg_t *a = agg_at(&s->hist, p->addr, p->size);
            a->count += p->count;
            a->fall += p->fall;
            a->imiss += p->imiss;
            add_mem(a, p->mem);
            s->current += p->count;
        }
    }
    map_clear(&pending);
}

static void promote_begin(void) {
    if (pending_begin >= 0) {
        open_set[n_open++] = (unsigned)pending_begin;
        pending_begin = -1;
    }
}

static void close_slot(unsigned idx) {
    settle();
    for (unsigned o = 0; o < n_open; o++) {
        if (open_set[o] != idx) {
            continue;
        }
        open_set[o] = open_set[--n_open];
        slot_t *s = &slots[idx];
        if (s->n_windows == s->cap_windows) {
            s->cap_windows = s->cap_windows ? 2 * s->cap_windows : 16;
            s->windows = realloc(s->windows, s->cap_windows * sizeof *s->windows);
            if (s->windows == NULL) {
                abort();
            }
        }
        s->windows[s->n_windows++] = s->current;
        s->current = 0;
        if (idx == n_slots - 1 && !reserved_split) { /* the first reserved window: a pair */
            reserved_split = 1;
            slots[n_slots].hist = s->hist;
            memset(&s->hist, 0, sizeof s->hist);
        }
        return;
    }
}

/* A SysTick read in hpx_layer_begin ends what comes before the window (a retried read too);
 * one in hpx_layer_end ends a piece of the window, which is settled when the slot closes. */
static void on_marker(rec_t *r, uint64_t vaddr, int store) {
    if (!store && vaddr == cvr_addr) {
        if (r->role == ROLE_END) {
            promote_begin();
        }
        cut();
        if (r->role == ROLE_BEGIN) {
            settle();
        }
    } else if (store && vaddr >= open_base && vaddr < open_base + n_slots) {
        unsigned idx = (unsigned)(vaddr - open_base);
        if (r->role == ROLE_BEGIN) {
            promote_begin();
            pending_begin = (int)idx;
        } else {
            promote_begin();
            close_slot(idx);
        }
    }
}

static unsigned region_of(uint64_t vaddr) {
    for (unsigned k = 0; k < n_regions; k++) {
        if (vaddr >= regions[k].lo && vaddr < regions[k].hi) {
            return k;
        }
    }
    return n_regions;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata) {
    (void)vcpu;
    rec_t *r = udata;
    int store = qemu_plugin_mem_is_store(info);
    uint64_t bytes = 1ull << qemu_plugin_mem_size_shift(info);
    uint64_t *m = r->mem;
    if (m == NULL) {
        m = r->mem = xcalloc(MAX_REGIONS * STATS, sizeof(uint64_t));
        r->mem_snap = xcalloc(MAX_REGIONS * STATS, sizeof(uint64_t));
    }
    unsigned region = region_of(vaddr), base = region * STATS;
    if (r->mem_seen != r->count) { /* the first access of this execution */
        r->mem_seen = r->count;
        m[base + (store ? 1 : 0)]++;
    }
    m[base + (store ? 3 : 2)] += bytes;
    if (dcache.sets != 0 && region < n_regions) {
        if (!uncached[region]) {
            m[base + (store ? 5 : 4)] += cache_access(&dcache, vaddr, bytes);
        }
        m[base + (store ? 7 : 6)] += cache_access(&dalone[region], vaddr, bytes);
    }
    if (r->role != 0) {
        on_marker(r, vaddr, store);
    }
}

/* Did the last instruction of the previous block run, and did control fall through? */
static void on_tb(unsigned int vcpu, void *udata) {
    (void)vcpu;
    tb_t *t = udata;
    tb_t *p = prev_tb;
    if (p != NULL && p->last->count != p->last->fall_seen) {
        p->last->fall_seen = p->last->count;
        if (t->start == p->next) {
            p->last->fall++;
        }
    }
    if (icache.sets != 0) {
        t->last->imiss += cache_access(&icache, t->start, t->next - t->start);
    }
    prev_tb = t;
}

static int by_value(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int is_static(uint64_t vaddr) {
    uint32_t key = (uint32_t)vaddr;
    return n_static > 0 && bsearch(&key, static_insns, n_static, sizeof key, by_value) != NULL;
}

static int load_static(const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    size_t cap = 1024;
    unsigned long value;
    static_insns = xcalloc(cap, sizeof *static_insns);
    while (fscanf(f, "%lx", &value) == 1) {
        if (n_static == cap) {
            cap *= 2;
            static_insns = realloc(static_insns, cap * sizeof *static_insns);
            if (static_insns == NULL) {
                abort();
            }
        }
        static_insns[n_static++] = (uint32_t)value;
    }
    fclose(f);
    qsort(static_insns, n_static, sizeof *static_insns, by_value);
    return 0;
}

static int inside(range_t r, uint64_t a) {
    return a >= r.lo && a < r.hi;
}

static void *make_rec(uint32_t addr, uint8_t size) {
    rec_t *r = xcalloc(1, sizeof *r);
    r->addr = addr;
    r->size = size;
    r->role = inside(begin_fn, addr) ? ROLE_BEGIN : inside(end_fn, addr) ? ROLE_END : 0;
    if (n_recs == cap_recs) {
        cap_recs = cap_recs ? 2 * cap_recs : 4096;
        rec_list = realloc(rec_list, cap_recs * sizeof *rec_list);
        if (rec_list == NULL) {
            abort();
        }
    }
    rec_list[n_recs++] = r;
    return r;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    rec_t *last = NULL;
    uint64_t start = 0, next = 0;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
        size_t size = qemu_plugin_insn_size(insn);
        if (inside(skip_fn, vaddr)) {
            return; /* SysTick_Handler: the counter subtracts it; so does the profile */
        }
        rec_t *r = map_get(&recs, (uint32_t)vaddr, make_rec, (uint8_t)size);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                   &r->count, 1);
        if (r->role != 0 || !is_static(vaddr)) {
            qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW, r);
        }
        if (i == 0) {
            start = vaddr;
        }
        last = r;
        next = vaddr + size;
    }
    if (last != NULL) {
        tb_t *t = xcalloc(1, sizeof *t);
        t->start = start;
        t->next = next;
        t->last = last;
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, t);
    }
}

static int by_addr(const void *a, const void *b) {
    uint32_t x = (*(agg_t *const *)a)->addr, y = (*(agg_t *const *)b)->addr;
    return (x > y) - (x < y);
}

static void write_slot(FILE *f, unsigned idx, slot_t *s) {
    agg_t **items = xcalloc(s->hist.used + 1, sizeof *items);
    size_t n = 0;
    for (size_t i = 0; i < s->hist.cap; i++) {
        if (s->hist.vals[i] != NULL) {
            items[n++] = s->hist.vals[i];
        }
    }
    qsort(items, n, sizeof *items, by_addr);
    fprintf(f, "slot %u %zu\n", idx, s->n_windows);
    for (size_t w = 0; w < s->n_windows; w++) {
        fprintf(f, "w %" PRIu64 "\n", s->windows[w]);
    }
    for (size_t i = 0; i < n; i++) {
        agg_t *a = items[i];
        fprintf(f, "i %" PRIx32 " %u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", a->addr, a->size,
                a->count, a->fall, a->imiss);
        for (unsigned k = 0; a->mem != NULL && k <= n_regions; k++) {
            const uint64_t *v = a->mem + k * STATS;
            if (v[0] || v[1] || v[2] || v[3]) {
                fprintf(f, "m %u", k);
                for (unsigned j = 0; j < STATS; j++) {
                    fprintf(f, " %" PRIu64, v[j]);
                }
                fputc('\n', f);
            }
        }
    }
    free(items);
}

static void on_exit_write(qemu_plugin_id_t id, void *udata) {
    (void)id;
    (void)udata;
    FILE *f = fopen(out_path, "w");
    if (f == NULL) {
        fprintf(stderr, "hpx-insight: cannot write %s\n", out_path);
        return;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n_recs; i++) {
        total += rec_list[i]->count;
    }
    fprintf(f, "hpx-insight 2\nregions %u\ntotal %" PRIu64 "\n", n_regions, total);
    for (unsigned idx = 0; idx <= n_slots; idx++) {
        if (slots[idx].n_windows > 0 || slots[idx].hist.used > 0) {
            write_slot(f, idx, &slots[idx]);
        }
    }
    fputs("end\n", f);
    fclose(f);
}

static int parse_range(const char *text, range_t *r) {
    char *colon;
    r->lo = strtoull(text, &colon, 0);
    if (*colon != ':') {
        return -1;
    }
    r->hi = strtoull(colon + 1, NULL, 0);
    return 0;
}

static int parse_arg(const char *arg) {
    const char *eq = strchr(arg, '=');
    if (eq == NULL) {
        return -1;
    }
    size_t key = (size_t)(eq - arg);
    const char *value = eq + 1;
    range_t r;
    if (key == 3 && strncmp(arg, "out", 3) == 0) {
        size_t n = strlen(value) + 1;
        out_path = xcalloc(n, 1);
        memcpy(out_path, value, n);
        return 0;
    }
    if (key == 6 && strncmp(arg, "static", 6) == 0) {
        return load_static(value);
    }
    if (key == 6 && strncmp(arg, "icache", 6) == 0) {
        return cache_init(&icache, value);
    }
    if (key == 6 && strncmp(arg, "dcache", 6) == 0) {
        return cache_init(&dcache, value);
    }
    if (key == 7 && strncmp(arg, "nocache", 7) == 0) {
        unsigned long k = strtoul(value, NULL, 0);
        if (k >= MAX_REGIONS) {
            return -1;
        }
        uncached[k] = 1;
        return 0;
    }
    if (key == 3 && strncmp(arg, "cvr", 3) == 0) {
        cvr_addr = strtoull(value, NULL, 0);
        return 0;
    }
    if (parse_range(value, &r) != 0) {
        return -1;
    }
    if (key == 5 && strncmp(arg, "begin", 5) == 0) {
        begin_fn = r;
    } else if (key == 3 && strncmp(arg, "end", 3) == 0) {
        end_fn = r;
    } else if (key == 4 && strncmp(arg, "skip", 4) == 0) {
        skip_fn = r;
    } else if (key == 4 && strncmp(arg, "open", 4) == 0) {
        open_base = r.lo;
        n_slots = (unsigned)r.hi;
    } else if (key == 6 && strncmp(arg, "region", 6) == 0 && n_regions < MAX_REGIONS - 1) {
        regions[n_regions++] = r;
    } else {
        return -1;
    }
    return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "probe=1") == 0) {
            fputs("hpx-insight loads\n", stderr);
            return -1;
        }
        if (parse_arg(argv[i]) != 0) {
            fprintf(stderr, "hpx-insight: cannot read argument %s\n", argv[i]);
            return -1;
        }
    }
    if (out_path == NULL || n_slots == 0 || cvr_addr == 0 || begin_fn.hi == 0 || end_fn.hi == 0) {
        fputs("hpx-insight: out, open, cvr, begin and end are required\n", stderr);
        return -1;
    }
    for (unsigned k = 0; dcache.sets != 0 && k < n_regions; k++) {
        if (cache_like(&dalone[k], &dcache) != 0) {
            fputs("hpx-insight: out of memory\n", stderr);
            return -1;
        }
    }
    slots = xcalloc(n_slots + 1, sizeof *slots);
    open_set = xcalloc(n_slots + 1, sizeof *open_set);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit_write, NULL);
    return 0;
}

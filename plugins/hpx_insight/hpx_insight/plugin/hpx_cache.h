/*
 * Set-associative caches with least-recently-used replacement, as the instruction-profile
 * plugin simulates them: the silicon board's instruction cache over the code each translation
 * block runs, and its data cache over the data accesses the plugin sees (one cache shared by
 * every cached range, and one per range as if that range were cached alone, so an estimate can
 * price a buffer moved between cached and uncached memory without another run).
 *
 * A cache is SIZE bytes of WAYS ways of LINE-byte lines (the plugin's icache= and dcache=
 * arguments, SIZE:WAYS:LINE); the number of sets must be a power of two. Every line touched
 * allocates (reads and writes alike); a miss is counted once per line an access touches.
 *
 * SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-or-later
 */
#ifndef HPX_CACHE_H
#define HPX_CACHE_H

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint32_t sets, ways, shift;
    uint32_t *tags;  /* sets * ways: line number + 1, 0 when empty */
    uint64_t *stamp; /* when each way was last used */
    uint64_t clock;
    uint32_t last;   /* the line touched last + 1 (0: none): already its set's most recent */
} cache_t;

/* Set ``c`` up from SIZE:WAYS:LINE; 0 when the geometry is usable. */
static int cache_init(cache_t *c, const char *spec) {
    char *end;
    unsigned long size = strtoul(spec, &end, 0);
    if (*end != ':') {
        return -1;
    }
    unsigned long ways = strtoul(end + 1, &end, 0);
    if (*end != ':') {
        return -1;
    }
    unsigned long line = strtoul(end + 1, &end, 0);
    if (*end != '\0' || ways == 0 || line == 0 || (line & (line - 1)) != 0) {
        return -1;
    }
    unsigned long sets = size / (ways * line);
    if (sets == 0 || (sets & (sets - 1)) != 0) {
        return -1;
    }
    c->sets = (uint32_t)sets;
    c->ways = (uint32_t)ways;
    c->shift = 0;
    while ((1ul << c->shift) < line) {
        c->shift++;
    }
    c->clock = 0;
    c->last = 0;
    c->tags = calloc(sets * ways, sizeof *c->tags);
    c->stamp = calloc(sets * ways, sizeof *c->stamp);
    return c->tags != NULL && c->stamp != NULL ? 0 : -1;
}

/* Copy ``from``'s geometry into ``c``, empty. */
static int cache_like(cache_t *c, const cache_t *from) {
    c->sets = from->sets;
    c->ways = from->ways;
    c->shift = from->shift;
    c->clock = 0;
    c->last = 0;
    c->tags = calloc((size_t)c->sets * c->ways, sizeof *c->tags);
    c->stamp = calloc((size_t)c->sets * c->ways, sizeof *c->stamp);
    return c->tags != NULL && c->stamp != NULL ? 0 : -1;
}

/* Touch one line (an address >> shift); 1 when it missed (and was filled). The line touched
 * last is a hit with nothing to update: it is already its set's most recently used, so touching
 * it again leaves every way's order as it was (most accesses read on in the same line). */
static inline int cache_touch(cache_t *c, uint32_t line) {
    uint32_t key = line + 1;
    if (key == c->last) {
        return 0;
    }
    c->last = key;
    uint32_t base = (line & (c->sets - 1)) * c->ways;
    uint32_t victim = 0;
    uint32_t *tags = c->tags + base;
    uint64_t *stamp = c->stamp + base;
    c->clock++;
    for (uint32_t w = 0; w < c->ways; w++) {
        if (tags[w] == key) {
            stamp[w] = c->clock;
            return 0;
        }
        if (stamp[w] < stamp[victim]) {
            victim = w;
        }
    }
    tags[victim] = key;
    stamp[victim] = c->clock;
    return 1;
}

/* Lines missed by an access of ``bytes`` bytes at ``addr``. */
static inline unsigned cache_access(cache_t *c, uint64_t addr, uint64_t bytes) {
    uint32_t first = (uint32_t)(addr >> c->shift);
    uint32_t last = (uint32_t)((addr + bytes - 1) >> c->shift);
    unsigned missed = 0;
    for (uint32_t line = first; line <= last; line++) {
        missed += (unsigned)cache_touch(c, line);
    }
    return missed;
}

#endif

/* SEGGER RTT up-channel writer (layout in hpx_rtt.h). */
#include "hpx_platform.h"
#include "hpx_rtt.h"

hpx_rtt_cb_t _SEGGER_RTT __attribute__((aligned(8), used));
static char rtt_up[HPX_RTT_UP_SIZE] __attribute__((aligned(4)));
static char rtt_down[HPX_RTT_DOWN_SIZE] __attribute__((aligned(4)));

static inline void memory_barrier(void) {
    __asm__ volatile("dmb" ::: "memory");
}

void hpx_rtt_init(void) {
    /* The ID goes in last, its first half at the very end, so a host scanning RAM never
     * finds a block whose descriptors are not yet valid, and no copy of the whole ID string
     * sits in the image's read-only data for a scan to find instead. */
    hpx_rtt_cb_t *cb = &_SEGGER_RTT;
    for (size_t i = 0; i < sizeof(cb->id); i++) {
        cb->id[i] = 0;
    }
    cb->max_up = 1;
    cb->max_down = 1;
    cb->up[0] = (hpx_rtt_buffer_t){"hpx", rtt_up, HPX_RTT_UP_SIZE, 0u, 0u, HPX_RTT_MODE};
    cb->down[0] = (hpx_rtt_buffer_t){"hpx", rtt_down, HPX_RTT_DOWN_SIZE, 0u, 0u, 0u};
    cb->dropped = 0u;
    memory_barrier();
    static const char tail[] = {'R', 'T', 'T'};
    static const char head[] = {'S', 'E', 'G', 'G', 'E', 'R'};
    for (size_t i = 0; i < sizeof(tail); i++) {
        cb->id[7 + i] = tail[i];
    }
    memory_barrier();
    for (size_t i = 0; i < sizeof(head); i++) {
        cb->id[i] = head[i];
    }
    memory_barrier();
    cb->id[6] = ' ';
    memory_barrier();
}

static uint32_t free_space(const hpx_rtt_buffer_t *up) {
    uint32_t rd = up->rd_off;
    uint32_t wr = up->wr_off;
    return rd > wr ? rd - wr - 1u : up->size - (wr - rd) - 1u;
}

size_t hpx_rtt_write(const char *data, size_t size) {
    hpx_rtt_buffer_t *up = &_SEGGER_RTT.up[0];
    size_t done = 0;
    while (done < size) {
        uint32_t room = free_space(up);
        if (room == 0u) {
            if ((up->flags & 3u) != 2u) {
                _SEGGER_RTT.dropped += (uint32_t)(size - done); /* trim: drop the rest */
                break;
            }
            continue; /* wait for the host to read */
        }
        uint32_t wr = up->wr_off;
        while (room > 0u && done < size) {
            up->buffer[wr] = data[done++];
            wr = wr + 1u == up->size ? 0u : wr + 1u;
            room--;
        }
        memory_barrier(); /* the bytes land before the offset that publishes them */
        up->wr_off = wr;
    }
    return done;
}

void hpx_rtt_no_wait(int on) {
    _SEGGER_RTT.up[0].flags = on ? 1u : HPX_RTT_MODE;
    memory_barrier();
}

/* The host's first drain: RdOff caught up with WrOff, which only a probe reading the ring can
 * do. The host attaches after the bootloader hands over (0.2 s and more), so the harness waits
 * here before it starts the counter, rather than count while nobody is attached (heliaPROFILER
 * waits for the same drain before its DWT-timed window and re-runs its DWT set-up after it).
 * Without a host this waits for ever, as a full ring in wait mode does. */
void hpx_transport_wait_host(void) {
    const hpx_rtt_buffer_t *up = &_SEGGER_RTT.up[0];
    while (up->rd_off != up->wr_off) {
        memory_barrier();
    }
}

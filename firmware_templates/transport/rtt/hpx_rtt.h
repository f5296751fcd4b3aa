/*
 * hpx's SEGGER RTT writer: one up-channel ("hpx") carrying the wire stream to the host.
 *
 * The control block follows SEGGER's documented layout, which debug probes and hpx's host
 * reader (hpx_core/probe/rtt.py) find in target RAM by its 16-byte ID "SEGGER RTT":
 *   char acID[16]; int32 MaxNumUpBuffers; int32 MaxNumDownBuffers;
 *   then the up-buffer descriptors, then the down-buffer descriptors, each
 *   { const char *sName; char *pBuffer; uint32 SizeOfBuffer; uint32 WrOff; uint32 RdOff;
 *     uint32 Flags; } (24 bytes).
 * The firmware only advances WrOff and the host only advances RdOff.
 *
 * While a measurement runs the writer never waits for the host (SEGGER's mode 1, trim, as
 * heliaPROFILER's firmware does): a host that falls behind would otherwise stall the core
 * inside the counted window. What does not fit is dropped and counted in ``dropped``, a word
 * hpx keeps right after the descriptors, which the host reads after the run and reports as an
 * issue of the run (hpx_core/probe/rtt.py dropped_bytes). Outside measurements it waits.
 */
#ifndef HPX_RTT_H
#define HPX_RTT_H

#include <stddef.h>
#include <stdint.h>

#ifndef HPX_RTT_UP_SIZE
#define HPX_RTT_UP_SIZE 4096u
#endif
#ifndef HPX_RTT_DOWN_SIZE
#define HPX_RTT_DOWN_SIZE 16u
#endif
/* Flags: 0 skip when full, 1 trim, 2 wait for the host (hpx never loses wire bytes). */
#ifndef HPX_RTT_MODE
#define HPX_RTT_MODE 2u
#endif

typedef struct {
    const char *name;
    char *buffer;
    uint32_t size;
    volatile uint32_t wr_off;
    volatile uint32_t rd_off;
    uint32_t flags;
} hpx_rtt_buffer_t;

typedef struct {
    char id[16];
    int32_t max_up;
    int32_t max_down;
    hpx_rtt_buffer_t up[1];
    hpx_rtt_buffer_t down[1];
    volatile uint32_t dropped; /* hpx's: bytes dropped while not waiting for the host */
} hpx_rtt_cb_t;

extern hpx_rtt_cb_t _SEGGER_RTT;

void hpx_rtt_init(void);
/* Writes all of data (waits for the host when the buffer is full in mode 2); returns bytes
 * written (fewer only in the non-blocking modes, which count the rest in ``dropped``). */
size_t hpx_rtt_write(const char *data, size_t size);
/* 1: never wait for the host (mode 1, trim) until called with 0 (back to HPX_RTT_MODE). */
void hpx_rtt_no_wait(int on);

#endif

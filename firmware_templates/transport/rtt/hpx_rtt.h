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
} hpx_rtt_cb_t;

extern hpx_rtt_cb_t _SEGGER_RTT;

void hpx_rtt_init(void);
/* Writes all of data (waits for the host when the buffer is full in mode 2); returns bytes
 * written (fewer only in the non-blocking modes). */
size_t hpx_rtt_write(const char *data, size_t size);

#endif

/*
 * What the harness needs from a board: a byte sink for the wire stream and a way to end the
 * run with a status the host sees. Each board support folder implements these.
 * hpx_platform_timed(1/0) brackets every counted inference (called outside the counter's
 * window): a board whose byte sink can stall the core while the host falls behind (RTT)
 * stops waiting then; the harness's weak default does nothing.
 */
#ifndef HPX_PLATFORM_H
#define HPX_PLATFORM_H

#include <stdint.h>

void hpx_platform_init(void);
void hpx_platform_putc(char c);
void hpx_platform_timed(int timed);
/* Returns once the host reads the stream (RTT: it drained what was written so far); the
 * harness calls it after START, before the counter starts. Weak no-op in the harness. */
void hpx_transport_wait_host(void);
void hpx_platform_exit(int code) __attribute__((noreturn));
/* The main stack's bounds: its lowest address and its top (the initial stack pointer). The
 * memory pass paints what is free of it. */
void hpx_platform_stack(uintptr_t *low, uintptr_t *top);

#endif

/*
 * What the harness needs from a board: a byte sink for the wire stream and a way to end the
 * run with a status the host sees. Each board support folder implements these.
 */
#ifndef HPX_PLATFORM_H
#define HPX_PLATFORM_H

#include <stdint.h>

void hpx_platform_init(void);
void hpx_platform_putc(char c);
void hpx_platform_exit(int code) __attribute__((noreturn));

#endif

/*
 * End the run by asking the core for a system reset; QEMU, started with -no-reboot, exits
 * instead of resetting. The emulated boards run without semihosting, so firmware (hpx's own
 * or an ELF from anywhere) has no way to the host: a BKPT 0xAB is a fault like any other. The
 * firmware's verdict is the stream's END record, as on a board.
 */
#include <stdint.h>

#include "hpx_platform.h"

#define SCB_AIRCR (*(volatile uint32_t *)0xE000ED0Cu)
#define AIRCR_VECTKEY (0x05FAu << 16)
#define AIRCR_SYSRESETREQ (1u << 2)

volatile int32_t hpx_exit_status = -1; /* the verdict, for a debugger attached to QEMU */

void hpx_platform_exit(int code) {
    hpx_exit_status = code;
    __asm__ volatile("dsb" ::: "memory"); /* every UART write done before the reset */
    SCB_AIRCR = AIRCR_VECTKEY | AIRCR_SYSRESETREQ;
    __asm__ volatile("dsb" ::: "memory");
    for (;;) {
    }
}

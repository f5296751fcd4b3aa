/*
 * The harness's platform on an Apollo board: the wire stream goes out over SEGGER RTT (the
 * probe runner reads it through the debug port), and the end of a run parks the core with
 * its exit status in a variable the host can read, since there is no emulator to exit.
 */
#include <stdint.h>

#include "hpx_platform.h"
#include "hpx_rtt.h"

volatile int32_t hpx_exit_status = -1;

void hpx_platform_init(void) {
    hpx_rtt_init();
}

void hpx_platform_putc(char c) {
    hpx_rtt_write(&c, 1u);
}

void hpx_platform_exit(int code) {
    hpx_exit_status = code;
    for (;;) {
        __asm__ volatile("wfi");
    }
}

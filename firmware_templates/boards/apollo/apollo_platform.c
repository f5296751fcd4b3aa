/*
 * The harness's platform on an Apollo board: the wire stream goes out over SEGGER RTT (the
 * probe runner reads it through the debug port), and the end of a run parks the core with
 * its exit status in a variable the host can read, since there is no emulator to exit.
 * During a timed inference RTT never waits for the host (a stall would be counted): text the
 * engine prints then and that does not fit is dropped, counted for the host, and its cut line
 * is ended once the inference is over so the next record starts a line of its own.
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

void hpx_platform_timed(int timed) {
    static uint32_t dropped_before;
    if (timed) {
        dropped_before = _SEGGER_RTT.dropped;
        hpx_rtt_no_wait(1);
        return;
    }
    hpx_rtt_no_wait(0);
    if (_SEGGER_RTT.dropped != dropped_before) {
        hpx_rtt_write("\n", 1u); /* waits: the cut text line ends before the next record */
    }
}

void hpx_platform_exit(int code) {
    hpx_exit_status = code;
    for (;;) {
        __asm__ volatile("wfi");
    }
}

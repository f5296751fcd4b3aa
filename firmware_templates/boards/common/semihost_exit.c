/*
 * End the run through Arm semihosting SYS_EXIT_EXTENDED, so the firmware's status becomes the
 * emulator's exit status (QEMU needs -semihosting-config enable=on,target=native).
 */
#include <stdint.h>

#include "hpx_platform.h"

#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

void hpx_platform_exit(int code) {
    static volatile uint32_t block[2];
    block[0] = ADP_STOPPED_APPLICATION_EXIT;
    block[1] = (uint32_t)code;
    register uint32_t r0 __asm__("r0") = SYS_EXIT_EXTENDED;
    register volatile uint32_t *r1 __asm__("r1") = block;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    for (;;) {
    }
}

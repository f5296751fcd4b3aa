/*
 * Fault reporting: every fault and unexpected exception lands here. It reports the stacked PC
 * and LR and the fault status registers in a FAULT record, ends the stream and exits with
 * HPX_EXIT_FAULT, so a crash is a diagnosis rather than a timeout.
 */
#include <stdint.h>

#include "hpx_harness.h"
#include "hpx_platform.h"
#include "hpx_wire.h"

#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)

void hpx_fault_report(const uint32_t *frame, uint32_t exc_return) __attribute__((noreturn, used));

void hpx_fault_report(const uint32_t *frame, uint32_t exc_return) {
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    hpx_wire_newline();
    hpx_wire_begin("FAULT");
    hpx_wire_u64("exc", ipsr & 0x1FFu);
    hpx_wire_hex32("pc", frame[6]);
    hpx_wire_hex32("lr", frame[5]);
    hpx_wire_hex32("xpsr", frame[7]);
    hpx_wire_hex32("cfsr", SCB_CFSR);
    hpx_wire_hex32("hfsr", SCB_HFSR);
    hpx_wire_hex32("mmfar", SCB_MMFAR);
    hpx_wire_hex32("bfar", SCB_BFAR);
    hpx_wire_hex32("exc_return", exc_return);
    hpx_wire_hex32("sp", (uint32_t)(uintptr_t)frame);
    hpx_wire_end();
    hpx_wire_begin("END");
    hpx_wire_u64("status", HPX_EXIT_FAULT);
    hpx_wire_end();
    hpx_platform_exit(HPX_EXIT_FAULT);
}

/* Find the exception frame (main or process stack) and hand it to the reporter. */
__attribute__((naked)) void hpx_fault_entry(void) {
    __asm__ volatile(
        "tst lr, #4\n\t"
        "ite eq\n\t"
        "mrseq r0, msp\n\t"
        "mrsne r0, psp\n\t"
        "mov r1, lr\n\t"
        "b hpx_fault_report\n\t");
}

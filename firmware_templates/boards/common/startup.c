/*
 * Reset and vector table for the emulated Cortex-M boards. Order matters: the UART comes up
 * first so a fault at any later point can be reported; FPU/MVE access is granted before any
 * C code may use them; static constructors run because engines register kernels in them.
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "hpx_platform.h"

extern uint32_t __StackTop, __StackLimit;
extern uint32_t __data_load__, __data_start__, __data_end__;
extern uint32_t __bss_start__, __bss_end__;

extern int main(void);
extern void __libc_init_array(void);

void Reset_Handler(void) __attribute__((noreturn));
void hpx_fault_entry(void);
void SysTick_Handler(void);

/* A counter backend that uses SysTick overrides this. */
__attribute__((weak)) void SysTick_Handler(void) {}

#define CPACR (*(volatile uint32_t *)0xE000ED88u)

void Reset_Handler(void) {
    hpx_platform_init();
#if HPX_HAS_FPU
    CPACR |= 0xFu << 20; /* CP10/CP11 full access: FPU, and MVE on Armv8.1-M */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    size_t data_size = (size_t)((char *)&__data_end__ - (char *)&__data_start__);
    memcpy(&__data_start__, &__data_load__, data_size);
    memset(&__bss_start__, 0, (size_t)((char *)&__bss_end__ - (char *)&__bss_start__));
    __libc_init_array();
    hpx_platform_exit(main());
}

void hpx_platform_stack(uintptr_t *low, uintptr_t *top) {
    *low = (uintptr_t)&__StackLimit;
    *top = (uintptr_t)&__StackTop;
}

typedef void (*hpx_vector_t)(void);

__attribute__((section(".vectors"), used)) const hpx_vector_t hpx_vectors[48] = {
    (hpx_vector_t)(uintptr_t)&__StackTop,
    Reset_Handler,
    hpx_fault_entry, /* NMI */
    hpx_fault_entry, /* HardFault */
    hpx_fault_entry, /* MemManage */
    hpx_fault_entry, /* BusFault */
    hpx_fault_entry, /* UsageFault */
    hpx_fault_entry, /* SecureFault (Armv8-M) */
    0, 0, 0,
    hpx_fault_entry, /* SVCall */
    hpx_fault_entry, /* DebugMonitor */
    0,
    hpx_fault_entry, /* PendSV */
    SysTick_Handler,
    /* external interrupts: none are enabled; an unexpected one is reported like a fault */
    hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry,
    hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry,
    hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry,
    hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry,
    hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry,
    hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry, hpx_fault_entry,
    hpx_fault_entry, hpx_fault_entry,
};

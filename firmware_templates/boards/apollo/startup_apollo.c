/*
 * Reset and vector table for the Apollo boards, laid out for the pinned nsx-ambiq-sdk's GCC
 * linker scripts: the table goes in .isr_vector, the stack in .stack, and every section the
 * script may load (data, shared SRAM, ITCM/DTCM/TCM code) is copied from its load address.
 * Sections a SoC's script lacks have weak, absent symbols: their copy loops do nothing.
 * The order is the SDK start-up's (nsx-core/src/<soc>/gcc/startup_gcc.c): vector table, stack
 * pointer, FPU access, stack limit, copies, zeroing; then the SoC's initialisation as Ambiq's
 * firmware does it before main (apollo_init.c: SystemInit, nsx_minimal_hw_init,
 * nsx_cache_enable) and, in the high-performance clock mode, the HAL's mode switch
 * (apollo_clock.c). Every exception and interrupt goes to the harness's fault reporter (none
 * are enabled), except, in that mode, SpotManager's own timer, whose handler is the HAL's.
 */
#include <stdint.h>

#include "board.h"
#include "hpx_apollo_cmsis.h"
#include "hpx_platform.h"

extern int main(void);
extern void __libc_init_array(void);
void hpx_fault_entry(void);
void Reset_Handler(void) __attribute__((naked, noreturn));
void hpx_reset_continue(void) __attribute__((noreturn, used));
void SysTick_Handler(void);

/* A counter backend that uses SysTick overrides this. */
__attribute__((weak)) void SysTick_Handler(void) {}

__attribute__((section(".stack"), used, aligned(8))) static uint64_t
    hpx_stack[HPX_STACK_BYTES / sizeof(uint64_t)];

#define HPX_WEAK_SECTION(prefix)                                              \
    extern uint32_t _init_##prefix __attribute__((weak));                     \
    extern uint32_t _s_##prefix __attribute__((weak));                        \
    extern uint32_t _e_##prefix __attribute__((weak))

extern uint32_t _init_data, _sdata, _edata, _sbss, _ebss;
extern uint32_t _init_data_sram __attribute__((weak));
extern uint32_t _ssdata __attribute__((weak)), _sedata __attribute__((weak));
extern uint32_t _ssram_bss __attribute__((weak)), _esram_bss __attribute__((weak));
extern uint32_t _init_tcm __attribute__((weak));
extern uint32_t _stcm __attribute__((weak)), _etcm __attribute__((weak));
HPX_WEAK_SECTION(itcm_text);
HPX_WEAK_SECTION(dtcm_text);

static void copy_words(const uint32_t *from, uint32_t *to, const uint32_t *end) {
    while (to < end) {
        *to++ = *from++;
    }
}

static void zero_words(uint32_t *to, const uint32_t *end) {
    while (to < end) {
        *to++ = 0u;
    }
}

void hpx_apollo_init(void); /* apollo_init.c */
#if HPX_CLOCK_HP
void hpx_apollo_clock(void); /* apollo_clock.c, with the SDK's HAL */
#endif

extern const uintptr_t hpx_vectors[];

/* The SDK start-up's first instructions: VTOR, then the stack pointer from the vector table's
 * first word (`ldr sp, [r1]`), so the stack is hpx's whoever started the core (a bootloader
 * that left SP elsewhere, a debugger that jumped here). Naked: no C code may touch the stack
 * before it is set. */
void Reset_Handler(void) {
    __asm volatile("ldr r0, =0xE000ED08\n" /* SCB->VTOR */
                   "ldr r1, =hpx_vectors\n"
                   "str r1, [r0]\n"
                   "ldr sp, [r1]\n"
                   "b hpx_reset_continue\n"
                   ".ltorg\n");
}

void hpx_reset_continue(void) {
    SCB->CPACR |= 0xFu << 20; /* CP10/CP11: FPU, and MVE on Armv8.1-M (the SDK start-up's) */
    __DSB();
    __ISB();
#if HPX_CORE_M55
    __set_MSPLIM((uint32_t)(uintptr_t)hpx_stack);
#endif
    copy_words(&_init_data, &_sdata, &_edata);
    copy_words(&_init_data_sram, &_ssdata, &_sedata);
    copy_words(&_init_tcm, &_stcm, &_etcm);
    copy_words(&_init_itcm_text, &_s_itcm_text, &_e_itcm_text);
    copy_words(&_init_dtcm_text, &_s_dtcm_text, &_e_dtcm_text);
    zero_words(&_sbss, &_ebss);
    zero_words(&_ssram_bss, &_esram_bss);
    hpx_apollo_init();
#if HPX_CLOCK_HP
    hpx_apollo_clock();
#endif
    hpx_platform_init();
    __libc_init_array();
    hpx_platform_exit(main());
}

void hpx_platform_stack(uintptr_t *low, uintptr_t *top) {
    *low = (uintptr_t)hpx_stack;
    *top = (uintptr_t)&hpx_stack[sizeof(hpx_stack) / sizeof(hpx_stack[0])];
}

#define HPX_VECTORS (16 + HPX_IRQ_COUNT)
#if HPX_CLOCK_HP && defined(HPX_IRQ_SPOTMGR_TIMER)
void am_timer15_isr(void); /* the HAL's: SpotManager's boost timer (am_hal_spotmgr) */
#endif

__attribute__((section(".isr_vector"), used)) const uintptr_t hpx_vectors[HPX_VECTORS] = {
    [0] = (uintptr_t)&hpx_stack[sizeof(hpx_stack) / sizeof(hpx_stack[0])],
    [1] = (uintptr_t)Reset_Handler,
    [2 ... 14] = (uintptr_t)hpx_fault_entry,
    [15] = (uintptr_t)SysTick_Handler,
    [16 ... HPX_VECTORS - 1] = (uintptr_t)hpx_fault_entry,
#if HPX_CLOCK_HP && defined(HPX_IRQ_SPOTMGR_TIMER)
    [16 + HPX_IRQ_SPOTMGR_TIMER] = (uintptr_t)am_timer15_isr,
#endif
};

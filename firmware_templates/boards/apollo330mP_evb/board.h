/* Board support constants for apollo330mP_evb: Ambiq Apollo330mP (Cortex-M55 with MVE). */
#ifndef HPX_BOARD_H
#define HPX_BOARD_H

#define HPX_BOARD_NAME "apollo330mP_evb"
#define HPX_CPU_CLOCK_HZ 96000000u /* after reset (the LP mode; hp: apollo_clock.c) */
/* the SoC, for the start-up's per-SoC initialisation (apollo/apollo_init.c) */
#define HPX_SOC_APOLLO510 0
#define HPX_SOC_APOLLO330P 1
#define HPX_SOC_APOLLO4P 0
#define HPX_SOC_APOLLO3P 0
#define HPX_CORE_M55 1
#define HPX_HAS_FPU 1
#define HPX_HAS_MVE 1
#define HPX_HAS_SECUREFAULT 1
#define HPX_STACK_BYTES 16384u
#define HPX_IRQ_COUNT 135 /* external interrupts in the vector table */
/* TIMER15, SpotManager's boost timer in the high-performance mode (the SDK start-up's
 * am_timer15_isr slot) */
#define HPX_IRQ_SPOTMGR_TIMER 124

#endif

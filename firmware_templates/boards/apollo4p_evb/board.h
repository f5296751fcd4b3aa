/* Board support constants for apollo4p_evb: Ambiq Apollo4 Plus (Cortex-M4F). */
#ifndef HPX_BOARD_H
#define HPX_BOARD_H

#define HPX_BOARD_NAME "apollo4p_evb"
#define HPX_CPU_CLOCK_HZ 96000000u /* after reset (the LP mode; hp: apollo_clock.c) */
/* the SoC, for the start-up's per-SoC initialisation (apollo/apollo_init.c) */
#define HPX_SOC_APOLLO510 0
#define HPX_SOC_APOLLO330P 0
#define HPX_SOC_APOLLO4P 1
#define HPX_SOC_APOLLO3P 0
#define HPX_CORE_M55 0
#define HPX_HAS_FPU 1
#define HPX_HAS_MVE 0
#define HPX_HAS_SECUREFAULT 0
#define HPX_STACK_BYTES 16384u
#define HPX_IRQ_COUNT 84 /* external interrupts in the vector table */

#endif

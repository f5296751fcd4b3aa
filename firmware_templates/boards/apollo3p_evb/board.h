/* Board support constants for apollo3p_evb: Ambiq Apollo3 Blue Plus (Cortex-M4F). */
#ifndef HPX_BOARD_H
#define HPX_BOARD_H

#define HPX_BOARD_NAME "apollo3p_evb"
#define HPX_CPU_CLOCK_HZ 48000000u /* after reset: the only mode hpx runs this SoC in */
/* the SoC, for the start-up's per-SoC initialisation (apollo/apollo_init.c) */
#define HPX_SOC_APOLLO510 0
#define HPX_SOC_APOLLO330P 0
#define HPX_SOC_APOLLO4P 0
#define HPX_SOC_APOLLO3P 1
#define HPX_CORE_M55 0
#define HPX_HAS_FPU 1
#define HPX_HAS_MVE 0
#define HPX_HAS_SECUREFAULT 0
#define HPX_STACK_BYTES 4096u
#define HPX_IRQ_COUNT 32 /* external interrupts in the vector table */

#endif

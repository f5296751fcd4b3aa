/* Board support constants for apollo510_evb: Ambiq Apollo510 (Cortex-M55 with MVE). */
#ifndef HPX_BOARD_H
#define HPX_BOARD_H

#define HPX_BOARD_NAME "apollo510_evb"
#define HPX_CPU_CLOCK_HZ 96000000u /* after reset; hpx does not switch clock modes */
#define HPX_CORE_M55 1
#define HPX_HAS_FPU 1
#define HPX_HAS_MVE 1
#define HPX_HAS_SECUREFAULT 1
#define HPX_STACK_BYTES 16384u
#define HPX_IRQ_COUNT 135 /* external interrupts in the vector table */

#endif

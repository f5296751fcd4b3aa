/* Board support constants for qemu-m55: QEMU mps3-an547 (Arm Cortex-M55 with MVE). */
#ifndef HPX_BOARD_H
#define HPX_BOARD_H

#define HPX_BOARD_NAME "qemu-m55"
#define HPX_UART_BASE 0x49303000u   /* CMSDK UART0 */
#define HPX_CPU_CLOCK_HZ 32000000u  /* SysTick runs on this clock */
#define HPX_HAS_FPU 1
#define HPX_HAS_MVE 1
#define HPX_HAS_SECUREFAULT 1

#endif

/* Board support constants for qemu-m4: QEMU mps2-an386 (Arm Cortex-M4F). */
#ifndef HPX_BOARD_H
#define HPX_BOARD_H

#define HPX_BOARD_NAME "qemu-m4"
#define HPX_UART_BASE 0x40004000u   /* CMSDK UART0 */
#define HPX_CPU_CLOCK_HZ 25000000u  /* SysTick runs on this clock */
#define HPX_HAS_FPU 1
#define HPX_HAS_MVE 0
#define HPX_HAS_SECUREFAULT 0

#endif

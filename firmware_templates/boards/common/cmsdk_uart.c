/* CMSDK APB UART transmitter (QEMU mps2/mps3 boards): polled, no interrupts. */
#include <stdint.h>

#include "board.h"
#include "hpx_platform.h"

#define UART_DATA (*(volatile uint32_t *)(HPX_UART_BASE + 0x00u))
#define UART_STATE (*(volatile uint32_t *)(HPX_UART_BASE + 0x04u))
#define UART_CTRL (*(volatile uint32_t *)(HPX_UART_BASE + 0x08u))
#define UART_BAUDDIV (*(volatile uint32_t *)(HPX_UART_BASE + 0x10u))
#define UART_STATE_TX_FULL 0x1u

void hpx_platform_init(void) {
    UART_BAUDDIV = 16u;
    UART_CTRL = 1u; /* TX enable */
}

void hpx_platform_putc(char c) {
    while (UART_STATE & UART_STATE_TX_FULL) {
    }
    UART_DATA = (uint32_t)(unsigned char)c;
}

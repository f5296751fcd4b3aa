/*
 * What picolibc expects from the platform that newlib-nano's libnosys supplies for GCC builds:
 * a thread-local storage block set up before any C library call (errno lives there), and _exit.
 * Compiled only when the toolchain's C library is picolibc (ATfE).
 */
#include <stddef.h>
#include <string.h>

#include "hpx_platform.h"

extern char __tdata_start[], __tdata_end[], __tdata_load[];
extern char __tbss_start[], __tbss_end[], __tls_base[];
extern void _set_tls(void *tls);

static void hpx_tls_init(void) {
    memcpy(__tdata_start, __tdata_load, (size_t)(__tdata_end - __tdata_start));
    memset(__tbss_start, 0, (size_t)(__tbss_end - __tbss_start));
    _set_tls(__tls_base);
}

/* The pre-init array runs first in __libc_init_array, before every static constructor. */
__attribute__((section(".preinit_array"), used)) static void (*hpx_tls_init_entry)(void) =
    hpx_tls_init;

void _exit(int code) { hpx_platform_exit(code); }

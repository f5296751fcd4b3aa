/*
 * The CMSIS core header for the Apollo SoCs, without their generated register-map headers:
 * hpx's start-up and counters touch only architectural registers (SCB, DWT, PMU), so this
 * header gives the core the facts it needs (revision, FPU, MVE, caches) and nothing else.
 * The core header itself comes from the pinned nsx-ambiq-sdk (modules/nsx-cmsis-core).
 */
#ifndef HPX_APOLLO_CMSIS_H
#define HPX_APOLLO_CMSIS_H

#include "board.h"

typedef enum IRQn {
    NonMaskableInt_IRQn = -14,
    HardFault_IRQn = -13,
    MemoryManagement_IRQn = -12,
    BusFault_IRQn = -11,
    UsageFault_IRQn = -10,
    SecureFault_IRQn = -9,
    SVCall_IRQn = -5,
    DebugMonitor_IRQn = -4,
    PendSV_IRQn = -2,
    SysTick_IRQn = -1,
} IRQn_Type;

#define __NVIC_PRIO_BITS 3U
#define __Vendor_SysTickConfig 0U
#define __MPU_PRESENT 1U
#define __FPU_PRESENT 1U

#if HPX_CORE_M55
#define __CM55_REV 0x0001U
#define __DSP_PRESENT 1U
#define __MVE_PRESENT 1U
#define __MVE_FP 1U
#define __ICACHE_PRESENT 1U
#define __DCACHE_PRESENT 1U
#define __PMU_PRESENT 1U
#define __PMU_NUM_EVENTCNT 8U
#define __SAUREGION_PRESENT 0U
#include "core_cm55.h"
#else
#define __CM4_REV 0x0001U
#include "core_cm4.h"
#endif

#endif

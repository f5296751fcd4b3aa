# Toolchain file for the GNU Arm Embedded toolchain (arm-none-eabi-gcc). HPX_TOOLCHAIN_PREFIX may
# point at a folder holding the compilers; by default they are found on PATH.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

if(DEFINED HPX_TOOLCHAIN_PREFIX AND NOT HPX_TOOLCHAIN_PREFIX STREQUAL "")
  set(_hpx_bin "${HPX_TOOLCHAIN_PREFIX}/")
else()
  set(_hpx_bin "")
endif()
set(CMAKE_C_COMPILER "${_hpx_bin}arm-none-eabi-gcc")
set(CMAKE_CXX_COMPILER "${_hpx_bin}arm-none-eabi-g++")
set(CMAKE_ASM_COMPILER "${_hpx_bin}arm-none-eabi-gcc")
set(CMAKE_OBJCOPY "${_hpx_bin}arm-none-eabi-objcopy")
set(CMAKE_SIZE "${_hpx_bin}arm-none-eabi-size")

# The C library and runtime: newlib-nano, with system calls stubbed.
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs --specs=nosys.specs")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

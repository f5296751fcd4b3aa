# Included after project() when hpx builds with a compiler cache (CMAKE_PROJECT_INCLUDE): every
# compile rule of the project (C, C++ and assembler: CMake has no assembler launcher) starts
# with it. The per-language launchers in the environment are for the projects CMake configures
# on its own during a build (ExternalProject); here they would run the cache twice.
if(HPX_COMPILER_LAUNCHER)
  set_property(GLOBAL PROPERTY RULE_LAUNCH_COMPILE "${HPX_COMPILER_LAUNCHER}")
  set(CMAKE_C_COMPILER_LAUNCHER "")
  set(CMAKE_CXX_COMPILER_LAUNCHER "")
endif()

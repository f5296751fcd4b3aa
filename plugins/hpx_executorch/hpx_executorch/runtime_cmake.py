"""The CMake project that builds the ExecuTorch runtime through nsx-executorch's own CMake.

nsx-executorch expects to live inside an NSX app: it refuses to configure unless the targets
``nsx::core``, ``nsx::cmsis_core``, ``nsx::soc_hal`` and ``nsx::board_flags`` exist, and its
``arm`` provider wants an ``arm-cmsis-nn`` module folder (``external/CMSIS-NN`` +
``external/CMSIS_6``). This project defines those stand-ins in the build tree, as
nsx-executorch's own ``tests/real-provider`` does, and never touches the source checkouts.

ExecuTorch's ``third-party/CMakeLists.txt`` always adds ``json`` (nlohmann, header-only, used
only by host tools). When that submodule is not materialized, the ``add_subdirectory`` call for
it alone is skipped here; the source set's provenance already says the submodule is absent.

ETDump (``etdump`` + ``flatccrt``) needs flatcc, whose CMake writes its libraries and its host
compiler into its own source folder. Both of ExecuTorch's uses of it (the host ``flatcc_ep``
and the target ``flatccrt``) are pointed at a copy in the build folder, and ``flatccrt``'s
archive into the build tree, so the source checkout is only read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from hpx_core.sdk.enginelib import cmake_quote, shell_join


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in value)


PORTABLE_TARGETS = ("executorch_selected_kernels", "portable_kernels")
"""The portable operators' targets: one library per operator set."""
CORTEX_M_REGISTRATION = "cortex_m_ops_lib"
"""The Cortex-M operators' registration: in the core when it registers all of them, else one
library per operator set."""


def _selection(value: Iterable[str] | None) -> tuple[str, ...] | None:
    return None if value is None else _strs(value)


@attrs.frozen
class RuntimeOptions:
    """What decides the runtime library besides the sources: provider, kernels, CPU flags, and
    the Cortex-M operators registered (``cortex_m_ops``: these, or None for every one)."""

    provider: str  # "arm" | "ns"
    ns_ops: bool
    portable_ops: tuple[str, ...] = attrs.field(converter=_strs)
    cpu_flags: tuple[str, ...] = attrs.field(converter=_strs)
    cortex_m_ops: tuple[str, ...] | None = attrs.field(default=None, converter=_selection)

    def targets(self) -> list[str]:
        """The CMake targets whose archives the app links."""
        names = ["executorch_core", "executorch", "extension_data_loader", "cortex_m_kernels"]
        if self.cortex_m_ops is None or self.cortex_m_ops:
            names.append(CORTEX_M_REGISTRATION)
        names += ["cmsis-nn", "etdump", "flatccrt"]
        if self.portable_ops:
            names += ["executorch_selected_kernels", "portable_kernels"]
        if self.ns_ops:
            names += ["cortex_m_ns_kernels", "cortex_m_ns_ops_lib"]
        return names

    def operator_targets(self) -> list[str]:
        """The targets registering the program's own operators: one library per set."""
        own = [*PORTABLE_TARGETS, *([CORTEX_M_REGISTRATION] if self.cortex_m_ops else [])]
        return [t for t in self.targets() if t in own]

    def core_targets(self) -> list[str]:
        """The targets every program links, whatever its operators."""
        own = self.operator_targets()
        return [t for t in self.targets() if t not in own]



HOST_FLATC = Path(__file__).with_name("host_flatc")
"""The project of the host ``flatc`` with only the generators C++ headers need."""


def third_party_redirects(flatcc_copy: Path, system_flatc: Path | None = None) -> str:
    """CMake that skips an absent ``third-party/json``, builds flatcc from ``flatcc_copy`` and
    the host ``flatc`` (:mod:`hpx_executorch.host_tools`): given ``system_flatc`` (the pinned
    flatbuffers' version) that one is installed; otherwise :data:`HOST_FLATC` builds it from the
    pinned flatbuffers.

    ExecuTorch builds both host tools with Makefiles, one file at a time, while the rest of the
    build waits for the headers they generate; they are built with the build's own generator
    (Ninja: every core) instead. CMake keeps only one previous definition of a command
    (``_name``), so ``add_subdirectory`` and ``ExternalProject_Add`` are each wrapped once.
    """
    flatc = cmake_quote(system_flatc) if system_flatc else '""'
    return f"""\
# hpx: skip only ExecuTorch's third-party/json when that host-only submodule is absent, and
# build flatcc (which puts its outputs into its own source folder) from a copy.
set(HPX_FLATCC_COPY {cmake_quote(flatcc_copy)})
set(HPX_SYSTEM_FLATC {flatc})
set(HPX_HOST_FLATC {cmake_quote(HOST_FLATC)})
function(add_subdirectory source)
  if(NOT CMAKE_CURRENT_SOURCE_DIR MATCHES "/third-party$")
    _add_subdirectory(${{ARGV}})
  elseif("${{source}}" STREQUAL "json"
         AND NOT EXISTS "${{CMAKE_CURRENT_SOURCE_DIR}}/json/CMakeLists.txt")
    message(STATUS "hpx: third-party/json is not materialized (host-only); not added")
  elseif("${{source}}" STREQUAL "flatcc")
    _add_subdirectory("${{HPX_FLATCC_COPY}}" "${{CMAKE_CURRENT_BINARY_DIR}}/flatcc" ${{ARGN}})
  else()
    _add_subdirectory(${{ARGV}})
  endif()
endfunction()
include(ExternalProject)  # include_guard(GLOBAL): ExecuTorch's own include keeps this wrapper
macro(_hpx_replace key value)  # the argument after `key` becomes `value` (`@old@`: what it
  list(FIND _hpx_args ${{key}} _hpx_at)  # was); `_hpx_old` is what it was
  if(_hpx_at GREATER -1)
    math(EXPR _hpx_at "${{_hpx_at}} + 1")
    list(GET _hpx_args ${{_hpx_at}} _hpx_old)
    string(REPLACE "@old@" "${{_hpx_old}}" _hpx_new "${{value}}")
    list(REMOVE_AT _hpx_args ${{_hpx_at}})
    list(INSERT _hpx_args ${{_hpx_at}} "${{_hpx_new}}")
  endif()
endmacro()
function(ExternalProject_Add name)
  set(_hpx_args ${{ARGN}})
  _hpx_replace(CMAKE_GENERATOR "${{CMAKE_GENERATOR}}")
  # a tree that ExecuTorch's own arguments configured (another generator) is not reused
  _hpx_replace(BINARY_DIR "@old@-hpx")
  if(name STREQUAL "flatbuffers_ep" AND HPX_SYSTEM_FLATC)
    _ExternalProject_Add(flatbuffers_ep
      PREFIX "${{CMAKE_CURRENT_BINARY_DIR}}/flatc_ep"
      SOURCE_DIR "${{CMAKE_CURRENT_BINARY_DIR}}/flatc_ep/system"
      DOWNLOAD_COMMAND "" CONFIGURE_COMMAND "" BUILD_COMMAND ""
      INSTALL_COMMAND "${{CMAKE_COMMAND}}" -E copy "${{HPX_SYSTEM_FLATC}}" "<INSTALL_DIR>/bin/flatc"
      BUILD_BYPRODUCTS "<INSTALL_DIR>/bin/flatc")
    return()
  endif()
  if(name STREQUAL "flatbuffers_ep")
    _hpx_replace(SOURCE_DIR "${{HPX_HOST_FLATC}}")
    list(FIND _hpx_args CMAKE_ARGS _hpx_at)
    math(EXPR _hpx_at "${{_hpx_at}} + 1")
    list(INSERT _hpx_args ${{_hpx_at}} "-DHPX_FLATBUFFERS_ROOT=${{_hpx_old}}")
  endif()
  if(name STREQUAL "flatcc_ep")
    _hpx_replace(SOURCE_DIR "${{HPX_FLATCC_COPY}}")
  endif()
  _ExternalProject_Add(${{name}} ${{_hpx_args}})
endfunction()
"""


# A static library's objects and custom commands (the Cortex-M operators' generated
# registration) would otherwise wait for every library it links to be archived: building the
# units a program needs would build all of them. Only the build order changes.
OPTIMIZED_DEPENDENCIES = "set(CMAKE_OPTIMIZE_DEPENDENCIES ON)"


# ExecuTorch builds flatccrt position-independent (for host shared libraries); in firmware that
# would add a .got that no start-up code or flash image knows about.
FLATCC_ARCHIVE = (
    'set_target_properties(flatccrt PROPERTIES ARCHIVE_OUTPUT_DIRECTORY '
    '"${CMAKE_BINARY_DIR}/hpx_flatcc" POSITION_INDEPENDENT_CODE OFF)\n'
)


def cortex_m_selection(cortex_m_ops: Sequence[str] | None) -> str:
    """Register only ``cortex_m_ops`` (``cortex_m::op.out``), not every Cortex-M operator.

    ExecuTorch's Cortex-M backend selects its registration from the whole ``operators.yaml``;
    it is given the program's operators instead (``ROOT_OPS``, as the portable ones are), so the
    registration names only their kernels and only those are linked and compiled. The backend
    includes ``Codegen.cmake``, which defines ``gen_selected_ops``, right before calling it: the
    wrapper is put back each time that file is included.
    """
    if not cortex_m_ops:
        return ""
    return f"""\
set(HPX_CORTEX_M_OPS "{",".join(cortex_m_ops)}")
function(_hpx_select_cortex_m_ops)
  function(gen_selected_ops)
    cmake_parse_arguments(_hpx "" "LIB_NAME" "" ${{ARGN}})
    if(_hpx_LIB_NAME STREQUAL "{CORTEX_M_REGISTRATION}")
      _gen_selected_ops(LIB_NAME "{CORTEX_M_REGISTRATION}" ROOT_OPS "${{HPX_CORTEX_M_OPS}}")
    else()
      _gen_selected_ops(${{ARGV}})
    endif()
  endfunction()
endfunction()
macro(include _hpx_file)
  _include(${{ARGV}})
  if("${{_hpx_file}}" MATCHES "/tools/cmake/Codegen[.]cmake$")
    _hpx_select_cortex_m_ops()
  endif()
endmacro()
"""


def portable_files(portable_ops: Sequence[str]) -> list[str]:
    """Source file names of the selected portable kernels (``aten::sub.out`` -> op_sub.cpp)."""
    return sorted({f"op_{op.split('::')[-1].split('.')[0]}.cpp" for op in portable_ops})


def portable_selection(portable_ops: Sequence[str],
                       helpers: Sequence[str] | None = None) -> str:
    """Compile only the selected portable kernels' sources.

    ExecuTorch's ``portable_kernels`` lists every portable operator (about 200 files), while
    the selective registration references only the model's. The unselected ``op_*.cpp`` files
    are marked header-only, which also keeps a GCC 12 + binutils 2.40 misassembly in unrelated
    kernels (an IT-predicated vcvtne in op_remainder.cpp) out of the build. Given ``helpers``
    (``util/x.cpp``, ``pattern/y.cpp``: those the program can link,
    :func:`hpx_executorch.core_units.portable_helpers`), the target's other helper files are
    left out too. When a selected file is not where expected, nothing is left out.
    """
    if not portable_ops:
        return ""
    files = ";".join(portable_files(portable_ops))
    kept = "ALL" if helpers is None else ";".join(helpers)
    return f"""\
if(TARGET portable_kernels)
  get_target_property(_hpx_srcs portable_kernels SOURCES)
  set(_hpx_wanted "{files}")
  set(_hpx_helpers "{kept}")
  set(_hpx_found 0)
  foreach(_hpx_src IN LISTS _hpx_srcs)
    get_filename_component(_hpx_name "${{_hpx_src}}" NAME)
    if(_hpx_name IN_LIST _hpx_wanted)
      math(EXPR _hpx_found "${{_hpx_found}} + 1")
    endif()
  endforeach()
  list(LENGTH _hpx_wanted _hpx_count)
  if(_hpx_found EQUAL _hpx_count)
    foreach(_hpx_src IN LISTS _hpx_srcs)
      get_filename_component(_hpx_name "${{_hpx_src}}" NAME)
      get_filename_component(_hpx_dir "${{_hpx_src}}" DIRECTORY)
      get_filename_component(_hpx_dir "${{_hpx_dir}}" NAME)
      if((_hpx_name MATCHES "^op_.*[.]cpp$" AND NOT _hpx_name IN_LIST _hpx_wanted)
         OR (NOT _hpx_helpers STREQUAL "ALL" AND _hpx_dir MATCHES "^(util|pattern)$"
             AND NOT "${{_hpx_dir}}/${{_hpx_name}}" IN_LIST _hpx_helpers))
        set_source_files_properties("${{_hpx_src}}" TARGET_DIRECTORY portable_kernels
                                    PROPERTIES HEADER_FILE_ONLY ON)
      endif()
    endforeach()
  else()
    message(WARNING "hpx: selected portable kernels not found by file name; building all")
  endif()
endif()
"""


def arm_module_stub(cmsis_nn: Path, cmsis_6: Path) -> Mapping[str, str]:
    """Files of the build-tree ``arm-cmsis-nn`` stand-in (symlink targets are listed apart)."""
    return {
        "CMakeLists.txt": (
            "# hpx stand-in for the arm-cmsis-nn NSX module: publishes nsx::arm_cmsis_nn over\n"
            "# the cmsis-nn target stock ExecuTorch created from the pinned CMSIS-NN.\n"
            "cmake_minimum_required(VERSION 3.20)\n"
            "if(NOT TARGET cmsis-nn)\n"
            "  message(FATAL_ERROR \"hpx: cmsis-nn target missing\")\n"
            "endif()\n"
            "add_library(hpx_arm_cmsis_nn INTERFACE)\n"
            "target_link_libraries(hpx_arm_cmsis_nn INTERFACE cmsis-nn)\n"
            "add_library(nsx::arm_cmsis_nn ALIAS hpx_arm_cmsis_nn)\n"
        ),
        "external/CMSIS-NN": cmsis_nn.as_posix(),
        "external/CMSIS_6": cmsis_6.as_posix(),
    }


def runtime_cmakelists(
    nsx_root: Path,
    cmsis_6: Path,
    options: RuntimeOptions,
    *,
    arm_module: Path | None,
    ns_root: Path | None,
    flatcc_copy: Path,
    extra_flags: Sequence[str] = (),
    system_flatc: Path | None = None,
    portable_helpers: Sequence[str] | None = None,
) -> str:
    """The top-level CMakeLists.txt for one runtime configuration (flatcc from its copy;
    ``portable_helpers``: see :func:`portable_selection`)."""
    flags = cmake_quote(shell_join((*options.cpu_flags, *extra_flags)))
    lines = [
        "# Generated by hpx: the ExecuTorch runtime built through nsx-executorch's CMake.",
        "cmake_minimum_required(VERSION 3.24)",
        "project(hpx_executorch_runtime LANGUAGES C CXX ASM)",
        "set(CMAKE_CXX_STANDARD 17)",
        OPTIMIZED_DEPENDENCIES,
        third_party_redirects(flatcc_copy, system_flatc),
        cortex_m_selection(options.cortex_m_ops),
    ]
    for name in ("core", "cmsis_core", "soc_hal", "board_flags"):
        lines.append(f"add_library(hpx_nsx_{name} INTERFACE)")
        lines.append(f"add_library(nsx::{name} ALIAS hpx_nsx_{name})")
    lines += [
        f"separate_arguments(HPX_BOARD_FLAGS UNIX_COMMAND {flags})",
        "target_compile_options(hpx_nsx_board_flags INTERFACE ${HPX_BOARD_FLAGS})",
        "target_include_directories(hpx_nsx_cmsis_core INTERFACE "
        + cmake_quote(cmsis_6 / "CMSIS/Core/Include") + ")",
        "set(NSX_BOARD_FLAGS_TARGET nsx::board_flags)",
        f'set(NSX_EXECUTORCH_CMSIS_NN_PROVIDER "{options.provider}" CACHE STRING "" FORCE)',
        'set(NSX_EXECUTORCH_ENABLE_PROFILING ON CACHE BOOL "" FORCE)',
        f'set(NSX_EXECUTORCH_ENABLE_NS_OPS {"ON" if options.ns_ops else "OFF"} '
        'CACHE BOOL "" FORCE)',
        f'set(NSX_EXECUTORCH_PORTABLE_SELECT_OPS_LIST "{",".join(options.portable_ops)}" '
        'CACHE STRING "" FORCE)',
    ]
    if arm_module is not None:
        lines.append(f"set(NSX_EXECUTORCH_ARM_CMSIS_NN_ROOT {cmake_quote(arm_module)} "
                     'CACHE PATH "" FORCE)')
    if ns_root is not None:
        lines.append(f"set(NSX_EXECUTORCH_NS_CMSIS_NN_ROOT {cmake_quote(ns_root)} "
                     'CACHE PATH "" FORCE)')
        lines.append(f"set(CMSIS_PATH {cmake_quote(cmsis_6)} CACHE PATH \"\" FORCE)")
    lines += [
        f"add_subdirectory({cmake_quote(nsx_root)} nsx-executorch EXCLUDE_FROM_ALL)",
        portable_selection(options.portable_ops, portable_helpers),
        FLATCC_ARCHIVE,
        "add_custom_target(hpx_runtime ALL)",
        f"add_dependencies(hpx_runtime {' '.join(options.targets())})",
        "",
    ]
    return "\n".join(lines)

"""A header most of a library's C++ units parse whole, compiled once per build instead.

TensorFlow Lite Micro's units nearly all reach ``schema_generated.h`` (the flatbuffers schema,
with the flatbuffers headers): about 2 of the 3.3 CPU-seconds each such unit takes with GCC are
spent parsing it. Compiled once as a precompiled header it takes each of them to about 1.3 s.
The header costs 10 to 15 CPU-seconds to make and is some 300 MB, so it is made in the build's
scratch tree, only when a build compiles enough units that reach it to pay for it, and never
kept (a compiler cache keeps it, as it keeps the units).

GCC records the optimization options in a precompiled header and uses it for a unit of other
options, producing other code, so one header is made per set of compile options its users share
(TensorFlow Lite Micro's framework at ``-Os``, its kernels at ``-O2``), with exactly their
command. A unit compiled with the header forced first (``-include``) compiles to the same code
and data as without it: the header is one the unit includes anyway, and guarded;
``tests/tflm/test_precompiled_e2e.py`` compares KWS's units both ways. Units that do not
reach the header are compiled as before: loading the header alone costs a second.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from hpx_core.firmware.cmake_text import cmake_quote
from hpx_core.sdk.enginelib.include_graph import IncludeGraph, include_names, normal

# Headers a unit compiled with a precompiled header must not include. GCC 12 stops with an
# internal compiler error in arm_mve_types.h (arm_mve_type_for_scalar_type) when the MVE
# intrinsics' types are set up after a precompiled header was loaded: units that include a
# CMSIS-NN's support functions (arm_nnsupportfunctions.h) for an MVE core hit it.
AVOIDED = ("arm_mve.h",)

PAYS_FROM = 8
"""Units of one set of options reaching the header that a build must compile for the header
to pay: it costs about as much as six or seven of them save (TFLite Micro's schema, GCC 12)."""

FOLDER = "hpx_precompiled"  # in the scratch tree
_NOT_FLAGS = {"-o": 1, "-MT": 1, "-MF": 1, "-c": 0, "-MD": 0}  # and how many values follow


@attrs.frozen
class Precompiled:
    """The header to precompile (a path)."""

    header: Path = attrs.field(converter=normal)
    pays_from: int = PAYS_FROM
    avoided: tuple[str, ...] = AVOIDED

    def users(self, commands: Mapping[str, str]) -> list[str]:
        """The C++ sources of ``commands`` (source -> its compile command) that include the
        header, directly or through others, and none of the ``avoided`` headers (by name: they
        are the compiler's own); each file's includes found where its command's include
        folders say."""
        graphs: dict[tuple[Path, ...], IncludeGraph] = {}
        avoids: dict[Path, bool] = {}  # each file read once

        def avoided(path: Path) -> bool:
            if path not in avoids:
                avoids[path] = any(Path(n).name in self.avoided for _, n in include_names(path))
            return avoids[path]

        found = []
        for source, command in commands.items():
            if not _is_cxx(source):
                continue
            folders = include_folders(command)
            graph = graphs.setdefault(folders, IncludeGraph(folders))
            reached = graph.reached([Path(source)])
            if self.header in reached and not any(map(avoided, reached | {Path(source)})):
                found.append(source)
        return found


def include_folders(command: str) -> tuple[Path, ...]:
    """The folders a compile ``command`` searches for includes, in its order."""
    args = shlex.split(command)
    found: list[Path] = []
    for index, arg in enumerate(args):
        for flag in ("-I", "-isystem", "-iquote"):
            if arg == flag and index + 1 < len(args):
                found.append(normal(args[index + 1]))
            elif arg.startswith(flag) and len(arg) > len(flag):
                found.append(normal(arg[len(flag):]))
    return tuple(found)


def precompile_cmake(chosen: Precompiled, users: Mapping[str, str],
                     commands: Mapping[str, str], tree: Path) -> str:
    """CMake lines making ``chosen``'s header once per set of compile options (``commands``:
    each user's compile command) at least ``pays_from`` of the ``users`` (source -> its
    target) share, in ``tree``, and compiling those users with it; empty when no set pays.
    The properties are set in each user's target's folder (a library's own CMake may add its
    targets from a subfolder)."""
    by_flags: dict[tuple[str, ...], list[str]] = {}
    for source in users:
        by_flags.setdefault(_flags(commands[source], source), []).append(source)
    lines: list[str] = []
    paying = [group for group in by_flags.items() if len(group[1]) >= chosen.pays_from]
    for number, (flags, sources) in enumerate(paying):
        stub = tree / FOLDER / str(number) / chosen.header.name
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text(f'#include "{chosen.header.as_posix()}"\n', encoding="utf-8")
        lines.append(_header_rule(stub, chosen.header, flags, f"hpx_precompiled_{number}"))
        for source in sources:
            where = f"SOURCE {cmake_quote(source)} TARGET_DIRECTORY {users[source]}"
            lines.append(f"set_property({where} APPEND PROPERTY OBJECT_DEPENDS "
                         f"{cmake_quote(f'{stub}.gch')})\n"
                         f"set_property({where} APPEND PROPERTY COMPILE_OPTIONS "
                         f"{cmake_quote(f'-Winvalid-pch;-include;{stub}')})\n")
    return "".join(lines)


def _header_rule(stub: Path, header: Path, flags: Sequence[str], target: str) -> str:
    """The compile of ``stub``'s precompiled header, through the compiler cache when there is
    one (``HPX_COMPILER_LAUNCHER``, empty otherwise), as ``target``: a target puts its rule
    in the build graph whatever folder its users' targets are in."""
    command = " ".join(cmake_quote(f) for f in flags)
    gch = cmake_quote(f"{stub}.gch")
    return (f"add_custom_command(OUTPUT {gch}\n"
            f"  COMMAND ${{HPX_COMPILER_LAUNCHER}} {command} -x c++-header "
            f"{cmake_quote(stub)} -o {gch}\n"
            f"  DEPENDS {cmake_quote(header)}\n"
            f"  COMMENT \"Precompiling {header.name}\" VERBATIM)\n"
            f"add_custom_target({target} DEPENDS {gch})\n")


def _flags(command: str, source: str) -> tuple[str, ...]:
    """The compiler and options of a unit's compile ``command``: without its source, object
    and dependency file."""
    args = shlex.split(command)
    kept: list[str] = []
    skip = 0
    for arg in args:
        if skip:
            skip -= 1
        elif arg in _NOT_FLAGS:
            skip = _NOT_FLAGS[arg]
        elif normal(arg) != normal(source):
            kept.append(arg)
    return tuple(kept)


def _is_cxx(source: str) -> bool:
    return Path(source).suffix in {".cc", ".cpp", ".cxx"}

"""Text hpx writes into CMake files: every path and value as one quoted argument.

A generated ``CMakeLists.txt`` that writes a path bare splits it at its first space ("Configuring
incomplete"), so every path, source and definition goes out through :func:`cmake_quote`. Some
characters no quoting gets through CMake, its compiler checks, Ninja and the shell: a folder
whose path holds one of :data:`UNBUILDABLE` is refused before anything is built
(:func:`unbuildable`), naming the character, instead of failing deep inside CMake.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

UNBUILDABLE = '$\\";|'
"""Characters CMake cannot build in (its own compiler checks and list syntax break on them)."""


def cmake_quote(value: str | Path) -> str:
    """``value`` as one quoted CMake argument (a path as POSIX text)."""
    text = value.as_posix() if isinstance(value, Path) else value
    for plain, escaped in (("\\", "\\\\"), ('"', '\\"'), ("$", "\\$")):
        text = text.replace(plain, escaped)
    return f'"{text}"'


def shell_join(flags: Iterable[str]) -> str:
    """Compiler flags as one command-line string (a flag holding a space, say a path, quoted
    as the shell reads it), for ``CMAKE_C_FLAGS`` and ``separate_arguments(... UNIX_COMMAND)``;
    plain flags come out as they go in."""
    return " ".join(shlex.quote(flag) for flag in flags)


def unbuildable(path: Path) -> str | None:
    """The characters of ``path`` that no CMake build survives, or None."""
    found = "".join(dict.fromkeys(c for c in str(path) if c in UNBUILDABLE or ord(c) < 32))
    return found or None

"""CMake text hpx writes: one quoted argument per path or value, flags joined as the shell
reads them, and the characters no CMake build survives named."""

from __future__ import annotations

import shlex
from pathlib import Path

from hpx_core.firmware.cmake_text import cmake_quote, shell_join, unbuildable


def test_a_value_is_one_quoted_argument_with_cmake_escapes() -> None:
    assert cmake_quote(Path("/a b/c")) == '"/a b/c"'
    assert cmake_quote('X="v"') == '"X=\\"v\\""'
    assert cmake_quote("${HOME}\\x") == '"\\${HOME}\\\\x"'
    assert cmake_quote("-fno-if-conversion;-fno-if-conversion2").count(";") == 1  # a list


def test_plain_flags_join_as_they_are_and_paths_stay_one_word() -> None:
    plain = ("-mcpu=cortex-m55", "-O2", "-ffile-prefix-map=/srv/cache=/hpx-cache")
    assert shell_join(plain) == " ".join(plain)  # same command lines, same objects
    spaced = ("-O2", "-ffile-prefix-map=/my cache/x=/hpx-cache", "-DX='y'")
    assert shlex.split(shell_join(spaced)) == list(spaced)


def test_the_characters_cmake_cannot_build_in_are_named() -> None:
    assert unbuildable(Path("/tmp/my results 'ö' #1 %x (z), w")) is None
    assert unbuildable(Path("/tmp/a$b;c")) == "$;"
    assert unbuildable(Path('/tmp/a"b\\c|d')) == '"\\|'
    assert unbuildable(Path("/tmp/a\nb")) == "\n"

"""The CMake toolchain files: GCC's as shipped, LLVM's rendered for the board's CPU."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from mock_atfe import make_mock_atfe, mock_atfe_missing

from hpx_core.boards import get_board
from hpx_core.firmware import detect_toolchains, get_toolchain
from hpx_core.firmware.templates import templates_root
from hpx_core.firmware.toolchain_file import toolchain_file_text, write_toolchain_file
from hpx_core.sdk.enginelib import toolchain_identity

needs_gcc = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None,
                               reason="needs arm-none-eabi-gcc")


def _setting(text: str, name: str) -> str:
    found = re.search(rf'^set\({name} "([^"]*)"', text, re.MULTILINE)
    assert found, name
    return found.group(1)


@needs_gcc
def test_gcc_gets_its_file_unchanged_with_newlib_nano_at_link_time(tmp_path: Path) -> None:
    gcc = get_toolchain("arm-none-eabi-gcc")
    text = toolchain_file_text(gcc, get_board("qemu-m55").cpu_flags)
    assert text == (templates_root() / "cmake" / "arm-none-eabi-gcc.cmake").read_text()
    assert _setting(text, "CMAKE_EXE_LINKER_FLAGS_INIT") == "--specs=nano.specs --specs=nosys.specs"
    path = write_toolchain_file(gcc, get_board("qemu-m55").cpu_flags, tmp_path)
    assert path.read_text() == text


@pytest.mark.parametrize(("board", "multilib"), [("qemu-m55", "v8-m.main+dp/hard"),
                                                 ("qemu-m4", "v7e-m+fp/hard")])
def test_clang_links_the_gnu_libraries_of_the_boards_cpu(board: str, multilib: str) -> None:
    clang = detect_toolchains()["clang"]
    if not clang.available:
        pytest.skip(clang.reason)
    text = toolchain_file_text(clang, get_board(board).cpu_flags)
    assert _setting(text, "CMAKE_C_COMPILER") == str(clang.compiler)
    assert "-fshort-enums" in _setting(text, "CMAKE_C_FLAGS_INIT")
    cxx = _setting(text, "CMAKE_CXX_FLAGS_INIT")
    assert f"arm-none-eabi/thumb/{multilib}" in cxx  # libstdc++'s c++config for this CPU
    link = _setting(text, "CMAKE_EXE_LINKER_FLAGS_INIT")
    assert f"--ld-path={clang.linker}" in link and "-nostdlib" in link
    start_files = [Path(p) for p in link.split() if p.endswith(".o")]
    assert [p.name for p in start_files] == ["crti.o", "crtbegin.o"]
    assert all(p.is_file() and multilib in p.as_posix() for p in start_files)
    libraries = _setting(text, "CMAKE_CXX_STANDARD_LIBRARIES")
    assert "-lc_nano" in libraries and libraries.endswith("crtn.o")
    assert "HPX_PICOLIBC" not in text


@pytest.mark.skipif(bool(mock_atfe_missing()), reason=mock_atfe_missing() or "ok")
def test_atfe_leaves_the_multilib_to_its_driver_and_asks_for_picolibcs_tls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_mock_atfe(tmp_path / "atfe")
    monkeypatch.setenv("ATFE_ROOT", str(root))
    atfe = get_toolchain("atfe")
    text = toolchain_file_text(atfe, get_board("qemu-m4").cpu_flags)
    assert _setting(text, "CMAKE_CXX_COMPILER") == str(root / "bin" / "clang++")
    assert _setting(text, "CMAKE_EXE_LINKER_FLAGS_INIT").endswith(
        "-nostartfiles -fno-exceptions -fno-rtti")
    assert _setting(text, "CMAKE_CXX_STANDARD_LIBRARIES") == ""
    assert "set(HPX_PICOLIBC ON)" in text
    assert toolchain_identity(atfe).startswith(f"atfe: {atfe.version} ({root / 'bin' / 'clang'})")
    assert "; recipe " in toolchain_identity(atfe)


@needs_gcc
def test_gcc_library_identity_is_its_version_line_alone() -> None:
    gcc = get_toolchain("arm-none-eabi-gcc")
    assert toolchain_identity(gcc) == gcc.version == toolchain_identity()

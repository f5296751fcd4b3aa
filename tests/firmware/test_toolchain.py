"""Toolchain detection says what is there, and why the rest is not and what to install."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from mock_atfe import make_mock_atfe, mock_atfe_missing

from hpx_core.errors import ToolError
from hpx_core.firmware import detect_toolchains, get_toolchain
from hpx_core.firmware.toolchain import LLVM_FLOOR, llvm_release


def _tool(folder: Path, name: str, version_line: str) -> Path:
    """A stand-in executable that answers ``--version`` like the real one."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{version_line}'\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_atfe_without_atfe_root_says_so() -> None:
    found = detect_toolchains({"PATH": os.environ.get("PATH", "")})
    assert not found["atfe"].available
    assert found["atfe"].reason == "ATFE_ROOT is not set and no ATfE clang is on PATH"


def test_a_wrong_atfe_root_is_refused_naming_what_it_lacks(tmp_path: Path) -> None:
    _tool(tmp_path / "bin", "clang", "clang version 22.1.0")
    with pytest.raises(ToolError) as caught:
        get_toolchain("atfe", {"PATH": "", "ATFE_ROOT": str(tmp_path)})
    message = caught.value.message
    assert f"ATFE_ROOT {tmp_path} is not an ATfE installation" in message
    assert "bin/ld.lld" in message and "lib/clang-runtimes/multilib.yaml" in message
    assert "bin/clang," not in message  # the clang that is there is not reported missing
    assert "ATFE_ROOT" in caught.value.hint


def test_missing_tools_on_an_empty_path(tmp_path: Path) -> None:
    found = detect_toolchains({"PATH": str(tmp_path)})
    assert found["arm-none-eabi-gcc"].reason == "arm-none-eabi-gcc is not on PATH"
    assert found["clang"].reason == "clang is not on PATH"
    with pytest.raises(ToolError, match="not available: arm-none-eabi-gcc is not on PATH"):
        get_toolchain("arm-none-eabi-gcc", {"PATH": str(tmp_path)})


def test_a_missing_clang_names_the_debian_packages(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="clang is not on PATH") as caught:
        get_toolchain("clang", {"PATH": str(tmp_path)})
    assert "clang-19 lld-19" in caught.value.hint
    assert "gcc-arm-none-eabi libnewlib-arm-none-eabi" in caught.value.hint


def test_clang_older_than_the_floor_is_refused(tmp_path: Path) -> None:
    _tool(tmp_path, "clang-14", "Debian clang version 14.0.6")
    with pytest.raises(ToolError, match=r"clang 14\.0 is older than 19\.1") as caught:
        get_toolchain("clang", {"PATH": str(tmp_path)})
    assert "clang-19" in caught.value.hint


def test_atfe_older_than_the_floor_is_refused(tmp_path: Path) -> None:
    for name in ("clang", "clang++", "ld.lld", "llvm-ar"):
        _tool(tmp_path / "bin", name, "clang version 18.1.3")
    (tmp_path / "lib" / "clang-runtimes").mkdir(parents=True)
    (tmp_path / "lib" / "clang-runtimes" / "multilib.yaml").write_text("MultilibVersion: 1.0\n")
    with pytest.raises(ToolError, match=r"clang 18\.1 is older than 19\.1"):
        get_toolchain("atfe", {"PATH": "", "ATFE_ROOT": str(tmp_path)})


def test_clang_without_lld_or_the_gnu_libraries_says_which(tmp_path: Path) -> None:
    _tool(tmp_path, "clang-19", "clang version 19.1.7")
    _tool(tmp_path, "clang++-19", "clang version 19.1.7")
    found = detect_toolchains({"PATH": str(tmp_path)})["clang"]
    assert found.reason == "ld.lld (LLVM's linker) is not installed"
    _tool(tmp_path, "ld.lld-19", "LLD 19.1.7")
    found = detect_toolchains({"PATH": str(tmp_path)})["clang"]
    assert "GNU Arm toolchain" in found.reason and not found.available


def test_the_newest_versioned_clang_is_chosen_unless_hpx_clang_names_one(tmp_path: Path) -> None:
    for major in (19, 20):
        for tool in ("clang", "clang++"):
            _tool(tmp_path, f"{tool}-{major}", f"clang version {major}.1.0")
        _tool(tmp_path, f"ld.lld-{major}", f"LLD {major}.1.0")
    _tool(tmp_path, "arm-none-eabi-gcc", "arm-none-eabi-gcc 12.2.1")
    env = {"PATH": str(tmp_path)}
    assert detect_toolchains(env)["clang"].compiler == tmp_path / "clang-20"
    chosen = detect_toolchains({**env, "HPX_CLANG": "clang-19"})["clang"]
    assert chosen.available and chosen.compiler == tmp_path / "clang-19"
    assert chosen.linker == tmp_path / "ld.lld-19"


def test_armclang_is_not_supported_even_when_installed(tmp_path: Path) -> None:
    _tool(tmp_path, "armclang", "Product: Arm Compiler for Embedded 6.22")
    found = detect_toolchains({"PATH": str(tmp_path)})["armclang"]
    assert not found.available and found.compiler == tmp_path / "armclang"
    assert found.reason.startswith("not supported: ") and "armlink" in found.reason
    with pytest.raises(ToolError, match="toolchain armclang is not available: not supported"):
        get_toolchain("armclang", {"PATH": str(tmp_path)})


def test_unknown_toolchain_suggests_a_name() -> None:
    with pytest.raises(ToolError, match="did you mean 'armclang'"):
        get_toolchain("armclan")


def test_llvm_release_reads_vendor_version_lines() -> None:
    assert llvm_release("Debian clang version 19.1.7 (3~deb12u1)") == (19, 1)
    assert llvm_release("clang version 22.1.0 (https://github.com/arm/arm-toolchain)") == (22, 1)
    assert llvm_release("gcc 12") is None
    assert LLVM_FLOOR <= (19, 1)


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs arm-none-eabi-gcc")
def test_gcc_is_found_with_its_version() -> None:
    gcc = get_toolchain("arm-none-eabi-gcc")
    assert gcc.compiler is not None and gcc.compiler.name == "arm-none-eabi-gcc"
    assert "arm-none-eabi-gcc" in gcc.version and any(ch.isdigit() for ch in gcc.version)
    assert gcc.identity == gcc.version  # GCC engine-library keys are what they always were


def test_a_real_clang_is_found_with_lld_and_the_gnu_libraries() -> None:
    found = detect_toolchains()["clang"]
    if not found.available:
        pytest.skip(f"no usable clang here: {found.reason}")
    assert found.linker is not None and found.linker.is_file()
    assert found.gnu_libraries is not None and "arm-none-eabi-gcc" in found.identity


@pytest.mark.skipif(bool(mock_atfe_missing()), reason=mock_atfe_missing() or "ok")
def test_an_atfe_layout_is_found_through_atfe_root_or_path(tmp_path: Path) -> None:
    root = make_mock_atfe(tmp_path / "atfe")
    through_root = get_toolchain("atfe", {"PATH": "", "ATFE_ROOT": str(root)})
    assert through_root.root == root and through_root.linker == root / "bin" / "ld.lld"
    on_path = get_toolchain("atfe", {"PATH": str(root / "bin")})
    assert on_path.root == root and on_path.version == through_root.version

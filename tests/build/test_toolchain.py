"""Toolchain detection says what is there and why the rest is not."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hpx_core.build import detect_toolchains, get_toolchain
from hpx_core.errors import ToolError


def test_atfe_without_atfe_root_says_so() -> None:
    found = detect_toolchains({"PATH": os.environ.get("PATH", "")})
    assert not found["atfe"].available
    assert found["atfe"].reason == "ATFE_ROOT is not set"


def test_atfe_root_without_clang_names_the_missing_file(tmp_path: Path) -> None:
    found = detect_toolchains({"PATH": "", "ATFE_ROOT": str(tmp_path)})
    assert not found["atfe"].available
    assert str(tmp_path / "bin" / "clang") in found["atfe"].reason


def test_missing_tools_on_an_empty_path(tmp_path: Path) -> None:
    found = detect_toolchains({"PATH": str(tmp_path)})
    assert found["arm-none-eabi-gcc"].reason == "arm-none-eabi-gcc is not on PATH"
    assert found["armclang"].reason == "armclang is not on PATH"
    with pytest.raises(ToolError, match="not available: arm-none-eabi-gcc is not on PATH"):
        get_toolchain("arm-none-eabi-gcc", {"PATH": str(tmp_path)})


def test_unknown_toolchain_suggests_a_name() -> None:
    with pytest.raises(ToolError, match="did you mean 'armclang'"):
        get_toolchain("armclan")


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs arm-none-eabi-gcc")
def test_gcc_is_found_with_its_version() -> None:
    gcc = get_toolchain("arm-none-eabi-gcc")
    assert gcc.compiler is not None and gcc.compiler.name == "arm-none-eabi-gcc"
    assert "arm-none-eabi-gcc" in gcc.version and any(ch.isdigit() for ch in gcc.version)

"""The plugin is compiled once per QEMU and compiler into the cache, and a host that cannot
build or load it is one clear error naming what to install."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from hpx_insight.plugin_build import check_loads, host_compiler, plugin_library

from hpx_core.errors import ToolError

from .conftest import needs_tools


def test_built_once_into_the_cache_and_loaded_by_qemu(tmp_path: Path) -> None:
    needs_tools()
    library = plugin_library(tmp_path)
    assert library.parent == tmp_path / "insight" and library.is_file()
    made = library.stat().st_mtime_ns
    assert plugin_library(tmp_path) == library and library.stat().st_mtime_ns == made
    check_loads(str(shutil.which("qemu-system-arm")), library)


def test_no_host_compiler_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "hpx-no-such-compiler")
    with pytest.raises(ToolError, match="no host C compiler") as caught:
        host_compiler()
    assert "apt-get install gcc" in caught.value.hint


def test_a_qemu_without_plugins_is_refused(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A QEMU built without TCG plugins answers -plugin with 'invalid option'."""
    needs_tools()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "qemu-system-arm"
    fake.write_text("#!/bin/sh\n"
                    "[ \"$1\" = --version ] && echo 'QEMU emulator version 9.9.9' && exit 0\n"
                    "echo 'qemu-system-arm: -plugin: invalid option' >&2\nexit 1\n",
                    encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ToolError, match=r"cannot load TCG plugins: .*invalid option") as caught:
        plugin_library(tmp_path / "cache")
    assert "plugin" in caught.value.hint
    assert not list((tmp_path / "cache" / "insight").glob("*.so"))  # nothing half-made kept

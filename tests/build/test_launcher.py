"""The compiler cache in front of every compile: found or turned off, counted per build, and a
firmware built through it is byte for byte the one built without it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from emulated_firmware import require_tools

from hpx_core.boards import get_board
from hpx_core.build import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.build.launcher import ENV, find_compiler_cache, read_stats
from hpx_core.selftest.layers import selftest_contribution

CCACHE = shutil.which("ccache")
needs_ccache = pytest.mark.skipif(CCACHE is None, reason="needs ccache (scripts/setup installs it)")


def test_turned_off_by_the_environment() -> None:
    assert find_compiler_cache({ENV: "off", "PATH": "/usr/bin:/bin"}) is None


def test_a_path_that_is_no_ccache_is_not_used(tmp_path: Path) -> None:
    fake = tmp_path / "ccache"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    assert find_compiler_cache({ENV: str(fake)}) is None


@needs_ccache
def test_found_with_its_version() -> None:
    found = find_compiler_cache({})
    assert found is not None and found.version.startswith("ccache ")


def test_stats_log_counts_units(tmp_path: Path) -> None:
    log = tmp_path / "stats.log"
    log.write_text("# /a.c\ncache_miss\ndirect_cache_miss\n# /b.S\ndirect_cache_hit\n"
                   "local_storage_hit\n# /c.c\npreprocessed_cache_hit\n# /d.c\n"
                   "unsupported_compiler_option\n")
    stats = read_stats(log)
    assert (stats.hits, stats.misses, stats.uncached) == (2, 1, 1)


@pytest.mark.emulated
@needs_ccache
def test_same_elf_bytes_with_and_without_ccache(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain, then through an empty ccache (misses), then a warm one (hits), in one folder."""
    require_tools()
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    monkeypatch.delenv("CCACHE_STATSLOG", raising=False)
    board, gcc = get_board("qemu-m55"), get_toolchain("arm-none-eabi-gcc")
    elves, results = [], []
    for launcher in ("off", str(CCACHE), str(CCACHE)):
        monkeypatch.setenv(ENV, launcher)
        shutil.rmtree(tmp_path / "work", ignore_errors=True)
        project = render_project(tmp_path / "work", board, selftest_contribution(board),
                                 HarnessSettings("selftest"))
        result = build_project(project, gcc)
        elves.append(result.elf.read_bytes())
        results.append(result)
    assert elves[0] == elves[1] == elves[2]
    plain, cold, warm = results
    assert plain.cache_stats is None and not plain.compiler_cache
    assert cold.cache_stats is not None and warm.cache_stats is not None
    assert cold.cache_stats.misses == cold.compiled > 0 and cold.cache_stats.hits == 0
    # every unit, the harness's assembler file included, came from the cache the second time
    assert warm.cache_stats.hits == warm.compiled == cold.compiled
    assert "Building ASM object" in warm.log.read_text(encoding="utf-8")

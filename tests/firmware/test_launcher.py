"""The compiler cache in front of every compile: found or turned off, counted per build; a
firmware built through it has the code and data of one built without it, and an app names no
folder it was built in, so two work folders share their compiled units."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from emulated_firmware import require_tools

from hpx_core.boards import get_board
from hpx_core.errors import ToolError
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.firmware.launcher import (
    ENV,
    build_env,
    compiler_cache,
    find_compiler_cache,
    read_stats,
)
from hpx_core.pipeline.doctor import run_doctor
from hpx_core.plugins import load_registry
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


@needs_ccache
def test_a_build_with_a_precompiled_header_tells_ccache_its_sloppiness_beside_the_users(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = find_compiler_cache({})
    assert found is not None
    (tmp_path / "ccache.conf").write_text("sloppiness = include_file_ctime\n")
    monkeypatch.setenv("CCACHE_CONFIGPATH", str(tmp_path / "ccache.conf"))
    monkeypatch.delenv("CCACHE_SLOPPINESS", raising=False)
    monkeypatch.delenv("CCACHE_INODECACHE", raising=False)
    assert "CCACHE_SLOPPINESS" not in build_env(found)
    assert "CCACHE_INODECACHE" not in build_env(found)
    assert build_env(found, precompiled=True)["CCACHE_INODECACHE"] == "true"
    assert build_env(found, precompiled=True)["CCACHE_SLOPPINESS"] == (
        "include_file_ctime,pch_defines,time_macros")  # ccache's own answer, kept
    monkeypatch.setenv("CCACHE_SLOPPINESS", "time_macros")
    assert build_env(found, precompiled=True)["CCACHE_SLOPPINESS"] == "time_macros,pch_defines"
    assert build_env(None, precompiled=True).get("CCACHE_SLOPPINESS") == "time_macros"


@needs_ccache
def test_library_builds_use_ccaches_depend_mode_unless_the_user_says(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found = find_compiler_cache({})
    assert found is not None
    monkeypatch.delenv("CCACHE_DEPEND", raising=False)
    monkeypatch.delenv("CCACHE_NODEPEND", raising=False)
    assert build_env(found, library=True)["CCACHE_DEPEND"] == "true"
    assert "CCACHE_DEPEND" not in build_env(found)  # an app's units: the preprocessor mode
    monkeypatch.setenv("CCACHE_NODEPEND", "1")
    assert "CCACHE_DEPEND" not in build_env(found, library=True)


def test_stats_log_counts_units(tmp_path: Path) -> None:
    log = tmp_path / "stats.log"
    log.write_text("# /a.c\ncache_miss\ndirect_cache_miss\n# /b.S\ndirect_cache_hit\n"
                   "local_storage_hit\n# /c.c\npreprocessed_cache_hit\n# /d.c\n"
                   "unsupported_compiler_option\n")
    stats = read_stats(log)
    assert (stats.hits, stats.misses, stats.uncached) == (2, 1, 1)


def _loaded(elf: Path) -> list[tuple[str, int, bytes]]:
    """What the board loads and runs: every allocated section's name, address and bytes."""
    import lief

    binary = lief.ELF.parse(str(elf))
    assert binary is not None
    return [(s.name, s.virtual_address, bytes(s.content)) for s in binary.sections
            if s.has(lief.ELF.Section.FLAGS.ALLOC)]


@pytest.mark.emulated
@needs_ccache
def test_same_firmware_with_and_without_ccache(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain, then through an empty ccache (misses), then a warm one (hits), in one folder: the
    same code and data, and through the cache the same bytes. (ccache hands the compiler the
    app's paths relative to its build folder, which GCC's line tables record in another shape
    than the absolute ones a plain build maps to the same names.)"""
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
    plain, cold, warm = results
    assert _loaded(plain.elf) == _loaded(cold.elf) != []
    assert elves[1] == elves[2]
    assert plain.cache_stats is None and not plain.compiler_cache
    assert cold.cache_stats is not None and warm.cache_stats is not None
    assert cold.cache_stats.misses == cold.compiled > 0 and cold.cache_stats.hits == 0
    # every unit, the harness's assembler file included, came from the cache the second time
    assert warm.cache_stats.hits == warm.compiled == cold.compiled
    assert "Building ASM object" in warm.log.read_text(encoding="utf-8")


@pytest.mark.emulated
@pytest.mark.parametrize("through", ["off", "ccache"])
def test_an_app_names_no_folder_it_was_built_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                through: str) -> None:
    """The same project in two work folders: the same bytes, naming neither folder, and through
    ccache the second folder compiles nothing (a matrix's cells share their harness)."""
    require_tools()
    if through == "ccache" and CCACHE is None:
        pytest.skip("needs ccache (scripts/setup installs it)")
    monkeypatch.setenv(ENV, str(CCACHE) if through == "ccache" else "off")
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    monkeypatch.delenv("CCACHE_STATSLOG", raising=False)
    monkeypatch.delenv("CCACHE_BASEDIR", raising=False)
    gcc = get_toolchain("arm-none-eabi-gcc")
    first, second = (build_project(_selftest_project(tmp_path / name), gcc)
                     for name in ("one folder", "another"))
    assert first.elf.read_bytes() == second.elf.read_bytes()
    assert str(tmp_path).encode() not in first.elf.read_bytes()
    if through == "ccache":
        assert first.cache_stats is not None and second.cache_stats is not None
        assert first.cache_stats.misses == first.compiled > 0
        assert second.cache_stats.hits == second.compiled == first.compiled


def _selftest_project(root: Path):  # type: ignore[no-untyped-def]
    board = get_board("qemu-m55")
    return render_project(root, board, selftest_contribution(board), HarnessSettings("selftest"))


@pytest.mark.emulated
@needs_ccache
@pytest.mark.parametrize("under", [False, True])
def test_a_ccache_dir_that_is_a_file_is_said_before_cmake_configures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, under: bool) -> None:
    """CMake would say only "Configuring incomplete" (its compiler checks fail in ccache)."""
    require_tools()
    afile = tmp_path / "ccache"
    afile.write_text("not a folder\n")
    setting = afile / "sub" if under else afile
    monkeypatch.setenv("CCACHE_DIR", str(setting))
    monkeypatch.setenv(ENV, str(CCACHE))
    project = _selftest_project(tmp_path / "work")
    with pytest.raises(ToolError) as refused:
        build_project(project, get_toolchain("arm-none-eabi-gcc"))
    assert refused.value.message.startswith(f"CCACHE_DIR is not a directory: {setting}")
    assert ("a file" in refused.value.message) is under
    assert "CCACHE_DIR" in refused.value.hint and f"{ENV}=off" in refused.value.hint
    assert not project.build_dir.exists()
    assert afile.read_text() == "not a folder\n"


@needs_ccache
def test_a_cache_dir_from_ccaches_configuration_is_checked_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    afile = tmp_path / "cache-file"
    afile.write_text("")
    config = tmp_path / "ccache.conf"
    config.write_text(f"cache_dir = {afile}\n")
    monkeypatch.delenv("CCACHE_DIR", raising=False)
    monkeypatch.setenv("CCACHE_CONFIGPATH", str(config))
    monkeypatch.setenv(ENV, str(CCACHE))
    with pytest.raises(ToolError, match="ccache's cache_dir is not a directory"):
        compiler_cache()
    report = run_doctor(load_registry(disabled=[]), toolchain="arm-none-eabi-gcc",
                        emulated=None)
    check = next(c for c in report.checks if c.name == "ccache")
    assert not report.healthy and not check.ok and check.required and "cache_dir" in check.detail


@needs_ccache
def test_a_folder_still_to_be_made_is_fine(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "not" / "yet"))
    monkeypatch.setenv(ENV, str(CCACHE))
    assert compiler_cache() is not None
    assert not (tmp_path / "not").exists()

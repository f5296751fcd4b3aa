"""The host flatc from the system (the PATH, beside Python's scripts, an installed ExecuTorch
package) only when it is the pinned flatbuffers' version."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hpx_executorch import host_tools
from hpx_executorch.host_tools import (
    BASE_HEADER,
    WHEEL_FLATC,
    matching_flatc,
    pinned_flatc_version,
)
from hpx_executorch.runtime_cmake import HOST_FLATC, third_party_redirects

from hpx_core.contract import SourceRepo, SourceSet

BASE = ("#define FLATBUFFERS_VERSION_MAJOR 24\n#define FLATBUFFERS_VERSION_MINOR 3\n"
        "#define FLATBUFFERS_VERSION_REVISION 25\n")


def _sources(root: Path) -> SourceSet:
    header = root / "executorch" / BASE_HEADER
    header.parent.mkdir(parents=True)
    header.write_text(BASE, encoding="utf-8")
    return SourceSet([SourceRepo("executorch", "https://example.invalid/executorch", "1" * 40,
                                 root / "executorch", "BSD-3-Clause")])


def _flatc(folder: Path, version: str) -> str:
    tool = folder / version / "flatc"
    tool.parent.mkdir(parents=True)
    tool.write_text(f"#!/bin/sh\necho 'flatc version {version}'\n", encoding="utf-8")
    tool.chmod(0o755)
    return str(tool)


def test_only_the_pinned_version_is_taken(tmp_path: Path) -> None:
    sources = _sources(tmp_path / "src")
    assert pinned_flatc_version(sources.path_of("executorch")) == "24.3.25"
    same = _flatc(tmp_path, "24.3.25")
    assert matching_flatc(sources, same) == Path(same)
    assert matching_flatc(sources, _flatc(tmp_path, "2.0.8")) is None
    assert matching_flatc(sources, _flatc(tmp_path, "24.3.2")) is None


def test_a_checkout_without_the_header_takes_none(tmp_path: Path) -> None:
    sources = SourceSet([SourceRepo("executorch", "https://example.invalid/executorch",
                                    "1" * 40, tmp_path, "BSD-3-Clause")])
    assert matching_flatc(sources, _flatc(tmp_path, "24.3.25")) is None


def test_the_project_installs_the_system_flatc_instead_of_building_it(tmp_path: Path) -> None:
    text = third_party_redirects(tmp_path / "flatcc", tmp_path / "bin" / "flatc")
    assert f'set(HPX_SYSTEM_FLATC "{(tmp_path / "bin" / "flatc").as_posix()}")' in text
    assert 'name STREQUAL "flatbuffers_ep" AND HPX_SYSTEM_FLATC' in text
    assert "-E copy" in text
    assert 'set(HPX_SYSTEM_FLATC "")' in third_party_redirects(tmp_path / "flatcc")


def test_without_one_the_build_makes_its_own_with_every_core(tmp_path: Path) -> None:
    text = third_party_redirects(tmp_path / "flatcc")
    assert f'set(HPX_HOST_FLATC "{HOST_FLATC.as_posix()}")' in text
    assert '_hpx_replace(SOURCE_DIR "${HPX_HOST_FLATC}")' in text
    assert '"-DHPX_FLATBUFFERS_ROOT=${_hpx_old}"' in text
    # ExecuTorch asks for Makefiles (one file at a time); the build's own generator is used
    assert '_hpx_replace(CMAKE_GENERATOR "${CMAKE_GENERATOR}")' in text
    assert {p.name for p in HOST_FLATC.iterdir()} >= {"CMakeLists.txt", "main.cpp"}


def test_a_flatc_beside_pythons_scripts_is_found_when_the_paths_is_another_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources(tmp_path / "src")
    monkeypatch.setenv("PATH", str(Path(_flatc(tmp_path / "path", "2.0.8")).parent))
    scripts = Path(_flatc(tmp_path / "venv", "24.3.25"))
    monkeypatch.setattr(host_tools.sysconfig, "get_path", lambda _name: str(scripts.parent))
    assert matching_flatc(sources) == scripts


def test_an_installed_executorch_packages_flatc_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources(tmp_path / "src")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(host_tools.sysconfig, "get_path", lambda _name: str(tmp_path / "none"))
    site = tmp_path / "site"
    info = site / "executorch-1.3.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: executorch\nVersion: 1.3.1\n",
                                   encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    assert matching_flatc(sources) is None  # the package without its flatc
    wheel = site / WHEEL_FLATC
    wheel.parent.mkdir(parents=True)
    shutil.copy(_flatc(tmp_path / "wheel", "24.3.25"), wheel)
    assert matching_flatc(sources) == wheel

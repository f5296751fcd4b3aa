"""The host flatc from the system only when it is the pinned flatbuffers' version."""

from __future__ import annotations

from pathlib import Path

from hpx_executorch.host_tools import BASE_HEADER, matching_flatc, pinned_flatc_version
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

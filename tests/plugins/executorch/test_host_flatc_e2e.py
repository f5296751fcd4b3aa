"""The host ``flatc`` hpx builds writes the schema headers upstream's ``flatc`` writes.

Needs the pinned sources, a host C++ compiler, CMake and Ninja. Both compilers are built from the
pinned flatbuffers with the options ExecuTorch gives it: upstream's own project (every language's
generator) and :data:`hpx_executorch.runtime_cmake.HOST_FLATC` (only those C++ headers need).
Each then generates the program schema's headers as ExecuTorch's build does, and so does the
``flatc`` ExecuTorch's wheel carries (:mod:`hpx_executorch.prebuilt_flatc`, downloaded by pip).
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
from pathlib import Path

import pytest
from etdump_reader import pinned_schema
from hpx_executorch.host_tools import pinned_flatc_version
from hpx_executorch.prebuilt_flatc import FLATBUFFERS, install
from hpx_executorch.runtime_cmake import HOST_FLATC

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("ninja") is None or shutil.which("c++") is None,
                       reason="needs ninja and a host C++ compiler"),
]
SCHEMAS = ("program.fbs", "scalar_type.fbs")
# executorch/third-party/CMakeLists.txt, flatbuffers_ep
OPTIONS = ("-DFLATBUFFERS_BUILD_FLATC=ON", "-DFLATBUFFERS_INSTALL=ON",
           "-DFLATBUFFERS_BUILD_FLATHASH=OFF", "-DFLATBUFFERS_BUILD_FLATLIB=OFF",
           "-DFLATBUFFERS_BUILD_TESTS=OFF", "-DCMAKE_CXX_FLAGS=-DFLATBUFFERS_MAX_ALIGNMENT=1024")


def _flatc(project: Path, build: Path, *extra: str) -> tuple[Path, int]:
    """``flatc`` built from ``project``, and the number of C++ units it compiled."""
    subprocess.run(["cmake", "-G", "Ninja", "-S", str(project), "-B", str(build), *OPTIONS,
                    *extra], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build), "--target", "flatc"], check=True,
                    capture_output=True)
    units = [p for p in build.rglob("*.o") if "flatc.dir" in p.parts]
    return next(p for p in build.rglob("flatc") if p.is_file()), len(units)


def _headers(flatc: Path, schema: Path, into: Path) -> list[Path]:
    subprocess.run([str(flatc), "--cpp", "--cpp-std", "c++11", "--gen-mutable",
                    "--scoped-enums", "-o", str(into), *SCHEMAS],
                   cwd=schema, check=True, capture_output=True)
    return sorted(into.iterdir())


def test_the_host_flatc_writes_upstreams_headers_from_fewer_units(tmp_path: Path) -> None:
    executorch = pinned_schema().parents[1]
    flatbuffers = executorch / "third-party" / "flatbuffers"
    upstream, upstream_units = _flatc(flatbuffers, tmp_path / "upstream")
    ours, our_units = _flatc(HOST_FLATC, tmp_path / "ours",
                             f"-DHPX_FLATBUFFERS_ROOT={flatbuffers}")
    theirs = _headers(upstream, executorch / "schema", tmp_path / "theirs")
    mine = _headers(ours, executorch / "schema", tmp_path / "mine")
    assert [p.name for p in mine] == [p.name for p in theirs] == [
        "program_generated.h", "scalar_type_generated.h"]
    assert all(filecmp.cmp(a, b, shallow=False) for a, b in zip(mine, theirs, strict=True))
    assert our_units < upstream_units / 2


def test_the_flatc_executorchs_wheel_carries_writes_the_same_headers(tmp_path: Path) -> None:
    executorch = pinned_schema().parents[1]
    assert pinned_flatc_version(executorch) == FLATBUFFERS  # the wheel follows the pin
    flatbuffers = executorch / "third-party" / "flatbuffers"
    ours, _units = _flatc(HOST_FLATC, tmp_path / "ours", f"-DHPX_FLATBUFFERS_ROOT={flatbuffers}")
    wheel = install(tmp_path / "bin")
    mine = _headers(ours, executorch / "schema", tmp_path / "mine")
    theirs = _headers(wheel, executorch / "schema", tmp_path / "theirs")
    assert [p.name for p in mine] == [p.name for p in theirs]
    assert all(filecmp.cmp(a, b, shallow=False) for a, b in zip(mine, theirs, strict=True))

"""The host ``flatc`` the runtime's build generates headers with, from the system when it
matches.

ExecuTorch compiles ``flatc`` for the host from its own flatbuffers only to generate the
program schema's headers; hpx compiles it with only the generators those need
(:data:`hpx_executorch.runtime_cmake.HOST_FLATC`, 14 C++ units rather than 37). A ``flatc`` on
the PATH that reports the pinned flatbuffers' very version generates the same headers, so the
build copies it instead and compiles none
(:func:`hpx_executorch.runtime_cmake.third_party_redirects`); any other version is left alone,
since its headers could differ.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hpx_core.contract import SourceSet
from hpx_core.tool_version import version_line

BASE_HEADER = "third-party/flatbuffers/include/flatbuffers/base.h"
_PART = re.compile(r"#define FLATBUFFERS_VERSION_(MAJOR|MINOR|REVISION) (\d+)")


def pinned_flatc_version(executorch: Path) -> str | None:
    """``24.3.25``: the version of the flatbuffers ExecuTorch pins (None: not found)."""
    try:
        parts = dict(_PART.findall((executorch / BASE_HEADER).read_text(encoding="utf-8")))
    except OSError:
        return None
    if set(parts) != {"MAJOR", "MINOR", "REVISION"}:
        return None
    return f"{parts['MAJOR']}.{parts['MINOR']}.{parts['REVISION']}"


def matching_flatc(sources: SourceSet, found: str | None = None) -> Path | None:
    """The system's ``flatc`` (``found``: this one) when it is the pinned version, else None."""
    binary = found or shutil.which("flatc")
    wanted = pinned_flatc_version(sources.path_of("executorch"))
    if binary is None or wanted is None:
        return None
    line = version_line(binary) or ""
    return Path(binary) if line.split()[-1:] == [wanted] else None

"""The host ``flatc`` the runtime's build generates headers with, from the system when it
matches.

ExecuTorch compiles ``flatc`` for the host from its own flatbuffers only to generate the
program schema's headers; hpx compiles it with only the generators those need
(:data:`hpx_executorch.runtime_cmake.HOST_FLATC`, 14 C++ units rather than 37). A ``flatc`` that
reports the pinned flatbuffers' very version generates the same headers, so the build copies it
instead and compiles none (:func:`hpx_executorch.runtime_cmake.third_party_redirects`); any
other version is left alone, since its headers could differ. One is looked for on the PATH,
beside the running Python's scripts (where :mod:`hpx_executorch.prebuilt_flatc` puts the one
ExecuTorch's own wheel carries) and in an ``executorch`` package installed with hpx.
"""

from __future__ import annotations

import re
import shutil
import sysconfig
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

from hpx_core.sdk import SourceSet
from hpx_core.sdk.sources import version_line

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


WHEEL_FLATC = "executorch/data/bin/flatc"
"""Where ExecuTorch's Python package keeps the ``flatc`` its serializer runs."""


def flatc_candidates() -> Iterator[Path]:
    """Every ``flatc`` hpx may take, in order: the PATH's, the one beside the running Python's
    scripts (a virtual environment's ``bin``, on the PATH only when it is activated), and the
    installed ``executorch`` package's."""
    found = shutil.which("flatc")
    if found:
        yield Path(found)
    yield Path(sysconfig.get_path("scripts")) / "flatc"
    try:
        yield Path(str(metadata.distribution("executorch").locate_file(WHEEL_FLATC)))
    except metadata.PackageNotFoundError:
        return


def matching_flatc(sources: SourceSet, found: str | None = None) -> Path | None:
    """The first of :func:`flatc_candidates` (``found``: only this one) that is the pinned
    version, else None."""
    wanted = pinned_flatc_version(sources.path_of("executorch"))
    if wanted is None:
        return None
    if found:
        return Path(found) if reports(Path(found), wanted) else None
    return first_flatc(wanted)


def first_flatc(version: str) -> Path | None:
    """The first of :func:`flatc_candidates` that reports ``version``, else None."""
    return next((c for c in flatc_candidates() if reports(c, version)), None)


def reports(flatc: Path, version: str) -> bool:
    """``flatc --version`` runs and ends with ``version``."""
    return flatc.is_file() and (version_line(flatc) or "").split()[-1:] == [version]

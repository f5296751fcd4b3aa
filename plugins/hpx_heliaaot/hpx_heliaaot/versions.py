"""Which heliaAOT may build here: the installed release against its floor, and its generated
code against the ns-cmsis-nn it will be compiled with.

heliaAOT's generated code refuses an ns-cmsis-nn older than the release's ``CMSIS_NN_VERSION``
(0.18.0 needs 7.25.0, 1.1.0 needs 7.47.0), so the pair is checked before anything is built,
reading the installed package's source without importing it.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from packaging.version import Version

from hpx_core.sdk import ToolError
from hpx_core.sdk.sources import (
    PackagePin,
    PinSet,
    load_pins,
    package_status,
    parse_version,
    require_package,
    source_version,
)

PACKAGE = "helia-aot"
AOT_DEFINES = "helia_aot/aot/defines.py"
_AOT_FLOOR = re.compile(
    r"CMSIS_NN_VERSION\s*=\s*SemanticVersion\(\s*major=(\d+),\s*minor=(\d+),\s*patch=(\d+)\s*\)"
)


def helia_aot_pin(pins: PinSet | None = None) -> PackagePin:
    return (pins or load_pins("hpx_heliaaot")).package(PACKAGE)


def require_helia_aot() -> Version:
    """The installed helia-aot, refused when missing or below this engine's floor."""
    return require_package(helia_aot_pin())


def kernel_floor(pkg: PackagePin) -> Version:
    """The oldest ns-cmsis-nn the installed helia-aot's generated code accepts."""
    status = package_status(pkg)
    if status.installed is None:
        raise ToolError(f"{status.distribution} is not installed", status.install_command)
    path = Path(str(metadata.distribution(status.distribution).locate_file(AOT_DEFINES)))
    try:
        match = _AOT_FLOOR.search(path.read_text(encoding="utf-8"))
    except OSError:
        match = None
    if match is None:
        raise ToolError(
            f"cannot tell which ns-cmsis-nn {status.distribution} {status.installed} needs: "
            f"no CMSIS_NN_VERSION in {path}",
            "this helia-aot release is not one hpx knows how to check; use another release",
        )
    return parse_version(".".join(match.groups()))


def check_pair(catalog: PinSet, ns_cmsis_nn: Path) -> Version:
    """Refuse a helia-aot whose generated code needs a newer ns-cmsis-nn than ``ns_cmsis_nn``.

    Returns the ns-cmsis-nn version found there.
    """
    pkg = catalog.package(PACKAGE)
    found = source_version(catalog.pin("ns-cmsis-nn"), ns_cmsis_nn)
    needed = kernel_floor(pkg)
    if found < needed:
        status = package_status(pkg)
        way_out = f'pip install "{pkg.distribution}=={pkg.pairs_with}"; ' if pkg.pairs_with else ""
        raise ToolError(
            f"{status.distribution} {status.installed} generates code that needs ns-cmsis-nn >= "
            f"{needed}, but ns-cmsis-nn at {ns_cmsis_nn} is {found}",
            f"{way_out}or build against an ns-cmsis-nn >= {needed} (a development override)",
        )
    return found

"""Version floors: helia-aot's installed version and heliaRT's source or prebuilt version.

Both fail closed: a version that cannot be read is an error, not a guess.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import attrs
from packaging.version import InvalidVersion, Version

from hpx_core.errors import SourceError, ToolError
from hpx_core.sources.baseline import Baseline, PackagePin, RepoPin, load_baseline


def parse_version(text: str) -> Version:
    try:
        return Version(text.strip().removeprefix("v"))
    except InvalidVersion as exc:
        raise SourceError(f"{text!r} is not a version", "expected e.g. 1.17.0") from exc


def below_floor(found: str | Version, floor: str) -> bool:
    version = found if isinstance(found, Version) else parse_version(found)
    return version < parse_version(floor)


def source_version(pin: RepoPin, root: Path) -> Version:
    """The version a source tree or prebuilt distribution declares (``pin.version_file``)."""
    if not pin.version_file or not pin.version_pattern:
        raise SourceError(f"the baseline says nowhere where {pin.name} keeps its version")
    path = root / pin.version_file
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        raise SourceError(
            f"cannot read the {pin.name} version: {path} is missing",
            f"point at a {pin.name} source tree or distribution that has {pin.version_file}",
        ) from None
    match = re.search(pin.version_pattern, text)
    if match is None:
        raise SourceError(
            f"cannot read the {pin.name} version: no version found in {path}",
            f"expected the pattern {pin.version_pattern}",
        )
    return parse_version(".".join(g for g in match.groups() if g is not None))


def heliart_version(root: Path, baseline: Baseline | None = None) -> Version:
    """heliaRT's version from its source tree or prebuilt distribution at ``root``."""
    return source_version((baseline or load_baseline()).pin("helia-rt"), root)


def require_heliart(root: Path, baseline: Baseline | None = None) -> Version:
    """heliaRT's version at ``root``, refused below the baseline's floor."""
    pin = (baseline or load_baseline()).pin("helia-rt")
    found = source_version(pin, root)
    if pin.min_version and below_floor(found, pin.min_version):
        raise SourceError(
            f"heliaRT {found} at {root} is below the supported minimum {pin.min_version}",
            f"use heliaRT >= {pin.min_version} (the pinned release is {pin.version})",
        )
    return found


@attrs.frozen
class PackageStatus:
    """What ``hpx doctor`` reports about an engine's Python distribution."""

    name: str
    distribution: str
    installed: str | None
    min_version: str | None

    @property
    def ok(self) -> bool:
        if self.installed is None:
            return False
        return self.min_version is None or not below_floor(self.installed, self.min_version)

    @property
    def install_command(self) -> str:
        spec = f"{self.distribution}>={self.min_version}" if self.min_version else self.distribution
        return f'pip install "{spec}"'


def package_status(name: str, baseline: Baseline | None = None) -> PackageStatus:
    """The installed version of a baseline package (e.g. ``helia-aot``), read from metadata."""
    pkg: PackagePin = _package(name, baseline)
    try:
        installed: str | None = metadata.version(pkg.distribution)
    except metadata.PackageNotFoundError:
        installed = None
    return PackageStatus(pkg.name, pkg.distribution, installed, pkg.min_version)


def require_package(name: str, baseline: Baseline | None = None) -> Version:
    """The installed version of ``name``; a :class:`ToolError` when missing or below the floor."""
    status = package_status(name, baseline)
    if status.installed is None:
        raise ToolError(f"{status.distribution} is not installed", status.install_command)
    if not status.ok:
        raise ToolError(
            f"{status.distribution} {status.installed} is below the supported minimum "
            f"{status.min_version}",
            status.install_command,
        )
    return parse_version(status.installed)


_AOT_FLOOR = re.compile(
    r"CMSIS_NN_VERSION\s*=\s*SemanticVersion\(\s*major=(\d+),\s*minor=(\d+),\s*patch=(\d+)\s*\)"
)
AOT_DEFINES = "helia_aot/aot/defines.py"


def helia_aot_kernel_floor(baseline: Baseline | None = None) -> Version:
    """The oldest ns-cmsis-nn the installed helia-aot's generated code accepts.

    Read from the installed package's source (``CMSIS_NN_VERSION``), without importing it.
    """
    status = package_status("helia-aot", baseline)
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


def check_helia_aot_pair(ns_cmsis_nn: Path, baseline: Baseline | None = None) -> Version:
    """Refuse a helia-aot whose generated code needs a newer ns-cmsis-nn than ``ns_cmsis_nn``.

    Returns the ns-cmsis-nn version found there.
    """
    base = baseline or load_baseline()
    pin = base.pin("ns-cmsis-nn")
    found = source_version(pin, ns_cmsis_nn)
    needed = helia_aot_kernel_floor(base)
    if found < needed:
        status = package_status("helia-aot", base)
        pkg = base.packages["helia-aot"]
        way_out = f'pip install "{pkg.distribution}=={pkg.pairs_with}"; ' if pkg.pairs_with else ""
        raise ToolError(
            f"{status.distribution} {status.installed} generates code that needs ns-cmsis-nn >= "
            f"{needed}, but ns-cmsis-nn at {ns_cmsis_nn} is {found}",
            f"{way_out}or build against an ns-cmsis-nn >= {needed} (a development override)",
        )
    return found


def _package(name: str, baseline: Baseline | None) -> PackagePin:
    base = baseline or load_baseline()
    try:
        return base.packages[name]
    except KeyError:
        raise SourceError(
            f"no package {name!r} in the baseline", f"known: {', '.join(sorted(base.packages))}"
        ) from None

"""Version floors: a source tree's declared version, and an engine's Python packages.

Both fail closed: a version that cannot be read is an error, not a guess.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import attrs
from packaging.version import InvalidVersion, Version

from hpx_core.errors import SourceError, ToolError
from hpx_core.sources.pins import PackagePin, RepoPin


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
        raise SourceError(f"the pin of {pin.name} says nowhere where it keeps its version")
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


def require_min_version(pin: RepoPin, root: Path) -> Version:
    """The version of the tree at ``root``, refused below the pin's ``min_version``."""
    found = source_version(pin, root)
    if pin.min_version and below_floor(found, pin.min_version):
        raise SourceError(
            f"{pin.name} {found} at {root} is below the supported minimum {pin.min_version}",
            f"use {pin.name} >= {pin.min_version} (the pinned release is {pin.version})",
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


def package_status(pkg: PackagePin) -> PackageStatus:
    """The installed version of an engine's package (e.g. a compiler), read from metadata."""
    try:
        installed: str | None = metadata.version(pkg.distribution)
    except metadata.PackageNotFoundError:
        installed = None
    return PackageStatus(pkg.name, pkg.distribution, installed, pkg.min_version)


def require_package(pkg: PackagePin) -> Version:
    """The installed version of ``pkg``; a :class:`ToolError` when missing or below the floor."""
    status = package_status(pkg)
    if status.installed is None:
        raise ToolError(f"{status.distribution} is not installed", status.install_command)
    if not status.ok:
        raise ToolError(
            f"{status.distribution} {status.installed} is below the supported minimum "
            f"{status.min_version}",
            status.install_command,
        )
    return parse_version(status.installed)

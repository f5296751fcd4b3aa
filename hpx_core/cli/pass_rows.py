"""What ``hpx plugins`` shows of installed passes and commands: each pass with its
distribution, its own keys under ``profiling``, its flags of ``hpx profile`` and the bundle
files it declares; each command with the distribution that adds it."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

import attrs

from hpx_core.cli.extensions import COMMAND_GROUP
from hpx_core.config.pass_keys import SECTION, ConfiguredPass, keys_of
from hpx_core.pass_plugins import pass_plugins
from hpx_core.plugins import Registry
from hpx_core.results.extensions import BundleExtension


@attrs.frozen
class PassRow:
    """One installed pass."""

    name: str
    entry_point: str
    distribution: str
    version: str
    keys: tuple[str, ...]
    flags: tuple[str, ...]
    files: tuple[str, ...]


@attrs.frozen
class CommandRow:
    """One command a distribution adds."""

    command: str
    entry_point: str
    distribution: str


def pass_rows(registry: Registry) -> tuple[PassRow, ...]:
    """Every installed pass of ``registry``, by entry-point name."""
    rows = []
    for entry, found in zip(registry.passes, pass_plugins(registry.passes), strict=True):
        configured = isinstance(found, ConfiguredPass)
        rows.append(PassRow(
            name=str(getattr(found, "name", entry.name)), entry_point=entry.value,
            distribution=_distribution(entry), version=entry.dist.version if entry.dist else "",
            keys=tuple(f"{SECTION}.{k}" for k in keys_of(found)) if configured else (),
            flags=tuple(f.flag for f in found.flags) if configured else (),
            files=tuple(found.schemas) if isinstance(found, BundleExtension) else ()))
    return tuple(rows)


def command_rows() -> tuple[CommandRow, ...]:
    """Every ``hpx.commands`` entry point, by name."""
    return tuple(CommandRow(e.name, e.value, _distribution(e))
                 for e in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name))


def _distribution(entry: EntryPoint) -> str:
    return entry.dist.name if entry.dist else "-"

"""The one error type users meet.

Every failure a user can cause ends as an :class:`HpxError`: a one-line cause and a one-line
hint. The CLI prints both and exits with :attr:`HpxError.exit_code`; it never shows a traceback
for these.
"""

from __future__ import annotations

from pathlib import Path

import attrs


@attrs.frozen
class Location:
    """Where in a file a value came from (1-based line and column)."""

    file: Path
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class HpxError(Exception):
    """A failure with a cause the user can act on."""

    exit_code: int = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\nhint: {self.hint}"


class UsageError(HpxError):
    """A command was called with arguments that cannot work together."""

    exit_code = 2


class ConfigError(HpxError):
    """A configuration value is unknown, mistyped or inconsistent."""

    exit_code = 2

    def __init__(self, message: str, hint: str = "", location: Location | None = None) -> None:
        prefix = f"{location}: " if location else ""
        super().__init__(prefix + message, hint)
        self.location = location


class ModelError(HpxError):
    """A model file cannot be read or is not what it claims to be."""


class PluginError(HpxError):
    """An engine plugin is missing, duplicated or misbehaving."""


class LicenseError(HpxError):
    """A component's license forbids running it on the chosen board."""

    exit_code = 2


class ToolError(HpxError):
    """An external tool (toolchain, QEMU, git, ...) is missing or failed."""


class SourceError(HpxError):
    """Engine sources could not be materialized at their pins."""


class BuildError(HpxError):
    """The firmware did not build."""


class RunError(HpxError):
    """The firmware did not run to completion on the board."""


class FarmError(HpxError):
    """A board farm (labgrid coordinator, place or exporter) refused or failed."""


class PowerError(HpxError):
    """A power instrument is missing, stopped streaming, or its trace does not match the run."""


class CaptureError(HpxError):
    """The device stream is truncated, corrupted or not understood."""


class ResultsError(HpxError):
    """A result bundle is missing, incomplete or fails verification."""

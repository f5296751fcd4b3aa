"""Where the firmware templates are: inside the installed package, or beside it in a checkout."""

from __future__ import annotations

from pathlib import Path

from hpx_core.errors import ToolError


def templates_root() -> Path:
    """The ``firmware_templates`` folder (wheel: ``hpx_core/firmware_templates``)."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "firmware_templates", package.parent / "firmware_templates"):
        if (candidate / "harness").is_dir():
            return candidate
    raise ToolError(
        "the firmware templates are missing from this hpx installation",
        "reinstall hpx-core; the wheel ships them as hpx_core/firmware_templates",
    )

"""The pyocd entry points hpx uses, imported only when a probe is needed.

Everything hpx does with a probe goes through these four names, so tests replace them with
fakes of the same shape (pyocd's ConnectHelper, FileProgrammer and exception classes), and the
J-Link path (:mod:`hpx_core.probe.jlink`) and a farm's remote pyocd answer them too.
"""

from __future__ import annotations

from typing import Any

import attrs

from hpx_core.errors import ToolError


@attrs.frozen
class PyocdApi:
    """``connect_helper``: pyocd.core.helpers.ConnectHelper; ``file_programmer``:
    pyocd.flash.file_programmer.FileProgrammer; ``error``: pyocd.core.exceptions.Error;
    ``target_support_error``: pyocd.core.exceptions.TargetSupportError."""

    connect_helper: Any
    file_programmer: Any
    error: type[Exception]
    target_support_error: type[Exception]
    version: str = "unknown"


def pyocd_api() -> PyocdApi:
    """The real pyocd, or a ToolError saying how to get it."""
    try:
        import pyocd
        from pyocd.core import exceptions
        from pyocd.core.helpers import ConnectHelper
        from pyocd.flash.file_programmer import FileProgrammer
    except ImportError as error:
        raise ToolError(
            f"pyocd is not importable ({error})",
            "install it: pip install pyocd (hpx needs it only to talk to a debug probe)",
        ) from None
    return PyocdApi(
        ConnectHelper,
        FileProgrammer,
        exceptions.Error,
        exceptions.TargetSupportError,
        str(getattr(pyocd, "__version__", "unknown")),
    )

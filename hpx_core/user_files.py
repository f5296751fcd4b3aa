"""Files hpx did not write, read as untrusted: regular files only, size-capped, strict JSON.

A path a user gives can name a FIFO (reading blocks until someone writes), a device such as
``/dev/zero`` (reading never ends), a folder, or a file far larger than anything hpx writes.
So the file's kind is checked before it is opened, checked again on the open descriptor (the
path may have changed in between), and no more than a stated limit is read.

JSON that hpx reads back (calibrations, estimates, a bundle's documents) must hold numbers a
person can act on: Python's ``json`` accepts ``NaN`` and ``Infinity``, which no standard JSON
reader does, and turns ``1e400`` into infinity. :func:`strict_json` refuses all three and
reports nesting too deep for the parser as an ordinary ``ValueError``.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from hpx_core.errors import HpxError, UsageError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path, *, limit: int, what: str, hint: str,
                 error: type[HpxError] = UsageError) -> bytes:
    """The bytes of ``path`` (at most ``limit``), or ``error`` naming ``what`` and the cause:
    missing, unreadable, not a regular file, or larger than ``limit``."""
    try:
        kind = _kind(path.stat().st_mode)
        if kind is None:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as stream:
                kind = _kind(os.fstat(stream.fileno()).st_mode)
                data = b"" if kind else stream.read(limit + 1)
    except OSError as cause:
        raise error(f"cannot read the {what} {path}: {cause.strerror or cause}", hint) from None
    if kind is not None:
        raise error(f"the {what} {path} is {kind}, not a file", hint)
    if len(data) > limit:
        raise error(f"the {what} {path} is over {_size(limit)}, larger than any hpx writes",
                    hint)
    return data


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit >> 10} KiB"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


MAX_DIGITS = 30
"""The longest integer hpx reads back: far past any count or address it writes (64-bit values
have 20 digits), short enough that an error message can quote a value."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text.lstrip('-')):,} digits is out of range")
    return int(text)


def strict_json(data: bytes | str) -> Any:
    """``data`` parsed as standard JSON with finite numbers of sane length; ValueError says
    why not."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite,
                          parse_int=_integer)
    except RecursionError:
        raise ValueError("nested too deeply") from None

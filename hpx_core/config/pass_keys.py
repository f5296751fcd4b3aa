"""A pass's own keys in the ``profiling`` section and the flags of ``hpx profile`` that set them.

An installed pass (:mod:`hpx_core.pass_plugins`) that has options names an attrs class: its
fields are keys of ``profiling`` next to the core's, documented by their docstrings,
structured by the same strict converter and located in the file the same way
(``profiling.estimate_for: unknown board ... at hpx.yaml:7:18``). Its :class:`PassFlag` records
become options of ``hpx profile`` whose origin ``hpx config show`` prints. A key two installed
passes, or a pass and the core, both claim stops the run with both named.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

import attrs

from hpx_core.errors import PluginError
from hpx_core.plugins import DISABLE_ENV

T = TypeVar("T")

SECTION = "profiling"
"""The section a pass's keys live in."""

FlagKind = Literal["switch", "text", "path"]


@attrs.frozen
class PassFlag:
    """``flag`` (``--estimate-for``) sets the pass's key ``key``; a ``switch`` takes no value
    (it sets true), ``text`` and ``path`` take one."""

    flag: str
    key: str
    help: str
    kind: FlagKind = "text"


@runtime_checkable
class ConfiguredPass(Protocol):
    """A pass with keys of its own: ``options`` is their attrs class (every field defaulted),
    ``flags`` the command-line options that set them."""

    @property
    def name(self) -> str: ...

    @property
    def options(self) -> type[Any]: ...

    @property
    def flags(self) -> tuple[PassFlag, ...]: ...


@runtime_checkable
class ClockedOptions(Protocol):
    """Options that name a silicon board whose performance mode ``target.clock`` then means,
    when the run's own board is emulated (a pass that estimates for that board)."""

    @property
    def clock_board(self) -> str | None: ...


def keys_of(found: ConfiguredPass) -> tuple[str, ...]:
    """The pass's keys in ``profiling``, in declaration order."""
    return tuple(field.name for field in attrs.fields(found.options))


def owned_keys(passes: tuple[ConfiguredPass, ...], core: frozenset[str]) -> Mapping[str, str]:
    """Every pass key -> the pass that owns it; a key claimed twice is a PluginError."""
    owners: dict[str, str] = {}
    for found in passes:
        for key in keys_of(found):
            other = "the core" if key in core else owners.get(key)
            if other is not None:
                raise PluginError(f"{SECTION}.{key} is claimed by {other} and by pass "
                                  f"{found.name!r}", f"uninstall one, or disable one with "
                                  f"{DISABLE_ENV}=<entry point>")
            owners[key] = found.name
    return owners


def options_of(found: tuple[object, ...], kind: type[T]) -> T:
    """The one options record of class ``kind`` among ``found`` (a pass asks for its own)."""
    for options in found:
        if isinstance(options, kind):
            return options
    raise LookupError(f"no {kind.__name__} among the run's pass options")

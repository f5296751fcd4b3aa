"""What an engine library is made of, and the key that names it in the cache."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import attrs

from hpx_core.firmware.toolchain import Toolchain, get_toolchain
from hpx_core.firmware.toolchain_file import recipe_identity
from hpx_core.sdk.enginelib.identity import identity_key

RECIPE_VERSION = 2
"""Bump when the way libraries are built changes, so old cache entries are not reused."""

Stage = Callable[[Path], None]
"""Writes generated inputs (e.g. patched headers) into the library folder before the build."""


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in value)


def _groups(value: Iterable[SourceGroup]) -> tuple[SourceGroup, ...]:
    return tuple(value)


def _str_map(value: Mapping[str, str]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(value.items())}


@attrs.frozen
class SourceGroup:
    """Sources compiled with the same extra options (upstream's per-group optimization level)."""

    name: str
    files: tuple[str, ...] = attrs.field(converter=_strs)
    options: tuple[str, ...] = attrs.field(default=(), converter=_strs)


@attrs.frozen
class LibrarySpec:
    """Everything that decides the bytes of an engine library.

    ``include_dirs`` may name ``@LIB@/...``: folders the ``stage`` callback creates inside the
    library's own cache folder (patched or generated headers live there, never in the
    source cache). ``identity`` holds what the file lists cannot show: engine, backend, pinned
    commits (:func:`hpx_core.sdk.enginelib.identity.source_identity`), toolchain version; never a
    board name. ``roots`` names the folders the paths live in
    (:func:`~hpx_core.sdk.enginelib.identity.source_roots`): the key sees paths relative to them.
    """

    name: str
    groups: tuple[SourceGroup, ...] = attrs.field(converter=_groups)
    include_dirs: tuple[str, ...] = attrs.field(converter=_strs)
    defines: Mapping[str, str] = attrs.field(converter=_str_map)
    cpu_flags: tuple[str, ...] = attrs.field(converter=_strs)
    common_flags: tuple[str, ...] = attrs.field(converter=_strs)
    file_options: Mapping[str, str] = attrs.field(factory=dict, converter=_str_map)
    identity: Mapping[str, str] = attrs.field(factory=dict, converter=_str_map)
    stage_inputs: Mapping[str, str] = attrs.field(factory=dict, converter=_str_map)
    roots: Mapping[str, str] = attrs.field(factory=dict, converter=_str_map)

    @property
    def file_count(self) -> int:
        return sum(len(g.files) for g in self.groups)

    def key(self) -> str:
        """SHA-256 over every input that can change the library, paths made portable."""
        spec = attrs.asdict(self, recurse=True, filter=lambda a, _v: a.name != "roots")
        return identity_key({"recipe": RECIPE_VERSION, "spec": spec}, self.roots)


def builds_with_gcc(toolchain: Toolchain | None) -> bool:
    """``toolchain`` (None: the default) is GNU's: for flags and workarounds only GCC needs."""
    return toolchain is None or toolchain.family == "gcc"


def toolchain_identity(toolchain: Toolchain | None = None) -> str:
    """What names ``toolchain`` (default: arm-none-eabi-gcc) in every library key: for GCC its
    first ``--version`` line, for the LLVM recipes also the compiler's path and C library."""
    return recipe_identity(toolchain or get_toolchain())

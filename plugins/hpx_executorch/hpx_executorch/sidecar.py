"""The ``<model>.pte.json`` sidecar: export-time facts that travel with an ExecuTorch program.

An exporter knows the kernel provider, whether the ``cortex_m_ns::`` kernels are required, the
portable select-ops list, the planned arena and the I/O sizes exactly once, at export time. The
sidecar (schema ``nsx-executorch.pte-manifest/1``) records them, bound to one PTE by SHA-256.
The engine uses them as defaults only; explicit config always wins. A sidecar that describes
another file is an error, never ignored.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.sdk import ConfigError
from hpx_core.sdk.models import ModelInfo

SCHEMA = "nsx-executorch.pte-manifest/1"
KernelProvider = Literal["arm", "ns"]
_REEXPORT = "re-export the model so that the .pte and its .pte.json sidecar match"


def _sidecar_tensors(value: Iterable[SidecarTensor]) -> tuple[SidecarTensor, ...]:
    return tuple(value)


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in value)


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in value)


@attrs.frozen
class SidecarTensor:
    shape: tuple[int, ...] = attrs.field(converter=_ints)
    dtype: str
    size_bytes: int | None


@attrs.frozen
class PteSidecar:
    """A verified sidecar: its hash matched the PTE it sits beside."""

    path: Path
    pte_sha256: str
    kernel_provider: KernelProvider | None
    requires_ns_ops: bool
    planned_arena_size: int | None
    inputs: tuple[SidecarTensor, ...] = attrs.field(converter=_sidecar_tensors)
    outputs: tuple[SidecarTensor, ...] = attrs.field(converter=_sidecar_tensors)
    cortex_m_ops: tuple[str, ...] = attrs.field(converter=_strs)
    cortex_m_ns_ops: tuple[str, ...] = attrs.field(converter=_strs)
    portable_ops: tuple[str, ...] = attrs.field(converter=_strs)


def sidecar_path(pte: Path) -> Path:
    return Path(f"{pte}.json")


def read_sidecar(pte: Path, pte_sha256: str) -> PteSidecar | None:
    """The verified sidecar of ``pte``, or None when it has none."""
    path = sidecar_path(pte)
    if not path.is_file():
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"unreadable PTE sidecar {path}: {exc}", hint=f"{_REEXPORT}, or delete the sidecar"
        ) from None
    return parse_sidecar(data, path, pte.name, pte_sha256)


def parse_sidecar(data: bytes, path: Path, pte_name: str, pte_sha256: str) -> PteSidecar:
    """The sidecar in ``data`` (read from ``path``), verified to describe ``pte_sha256``."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # also numbers and nesting Python refuses
        raise ConfigError(
            f"unreadable PTE sidecar {path}: {str(exc).split(';')[0]}",
            hint=f"{_REEXPORT}, or delete the sidecar",
        ) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise ConfigError(
            f"{path}: unsupported sidecar schema {found!r}, expected {SCHEMA!r}",
            hint=f"{_REEXPORT} with a matching exporter",
        )
    recorded = doc.get("pte_sha256")
    if recorded != pte_sha256:
        raise ConfigError(
            f"{path} describes a different program (pte_sha256 {recorded}, "
            f"{pte_name} is {pte_sha256})",
            hint=_REEXPORT,
        )
    return _parse(path, doc, pte_sha256)


def _parse(path: Path, doc: dict[str, Any], sha256: str) -> PteSidecar:
    operators = _field(path, doc, "operators", dict, {})
    return PteSidecar(
        path=path,
        pte_sha256=sha256,
        kernel_provider=_provider(path, doc.get("kernel_provider")),
        requires_ns_ops=_field(path, doc, "requires_ns_ops", bool, False),
        planned_arena_size=_positive(path, doc.get("planned_arena_size"), "planned_arena_size"),
        inputs=_tensors(path, doc, "inputs"),
        outputs=_tensors(path, doc, "outputs"),
        cortex_m_ops=_names(path, operators, "cortex_m"),
        cortex_m_ns_ops=_names(path, operators, "cortex_m_ns"),
        portable_ops=_names(path, operators, "portable"),
    )


def _fail(path: Path, field: str, expected: str) -> ConfigError:
    return ConfigError(
        f"{path}: field {field!r} must be {expected}",
        hint=f"{_REEXPORT} instead of editing the sidecar by hand",
    )


def _field(path: Path, doc: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    value = doc.get(key, default)
    if value is None:
        return default
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise _fail(path, key, f"a JSON {kind.__name__}")
    return value


def _provider(path: Path, value: object) -> KernelProvider | None:
    if value is None:
        return None
    if value not in ("arm", "ns"):
        raise _fail(path, "kernel_provider", "'arm' or 'ns'")
    return value


def _positive(path: Path, value: object, field: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise _fail(path, field, "a positive integer")
    return value


def _tensors(path: Path, doc: dict[str, Any], key: str) -> list[SidecarTensor]:
    entries = _field(path, doc, key, list, [])
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise _fail(path, key, "a list of tensor objects")
        shape = entry.get("shape", [])
        if not isinstance(shape, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in shape
        ):
            raise _fail(path, f"{key}[].shape", "a list of integers")
        out.append(
            SidecarTensor(
                shape=shape,
                dtype=str(entry.get("dtype", "")),
                size_bytes=_positive(path, entry.get("size_bytes"), f"{key}[].size_bytes"),
            )
        )
    return out


def _names(path: Path, operators: dict[str, Any], key: str) -> tuple[str, ...]:
    names = operators.get(key) or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _fail(path, f"operators.{key}", "a list of operator names")
    return tuple(names)


def sidecar_of(model: ModelInfo) -> PteSidecar | None:
    """The verified sidecar beside ``model``, read once per program and sidecar version in a
    process (every hook of a run asks for it)."""
    try:
        stat = sidecar_path(model.path).stat()
        version = (stat.st_size, stat.st_mtime_ns)
    except OSError:
        version = None
    return _read_once(model.path, model.sha256, version)


@functools.lru_cache(maxsize=32)
def _read_once(path: Path, sha256: str, _version: tuple[int, int] | None) -> PteSidecar | None:
    return read_sidecar(path, sha256)

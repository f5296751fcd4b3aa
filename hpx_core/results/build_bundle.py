"""Build bundles: a checked firmware image kept to be run later, on any machine.

``hpx build MODEL`` stops after kernel verification and leaves this folder: the ELF, its sizes
and placement, the kernel checks, the config and where the sources came from, with a manifest
like a result bundle's (assembled aside and renamed; ``hpx results verify`` checks it).
``hpx run BUNDLE`` runs the ELF it holds and writes a result bundle that keeps these facts.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.errors import ResultsError
from hpx_core.results.bundle import dump_json, write_folder
from hpx_core.results.bundle_schema import BUNDLE_SCHEMA
from hpx_core.results.verify import verify_bundle

BUILT = "built"
ELF = "firmware.elf"
KIND = "build"


@attrs.frozen
class BuildBundleInputs:
    """What a checked build leaves behind. ``note`` says why the run stopped there, if it was
    meant to go on (a silicon board without a probe, say)."""

    board: str
    engine: str
    backend: str | None
    model_sha256: str | None
    toolchain: str
    elf: Path
    work_dir: Path
    build: Mapping[str, Any]
    placement: Mapping[str, Any]
    kernel_checks: Sequence[Mapping[str, Any]]
    config: Mapping[str, Any]
    provenance: Mapping[str, Any]
    note: str | None = None
    engine_libraries: tuple[str, ...] = ()
    engine_code: str | None = None  # SHA-256 of the engine's shipped files and glue


def write_build_bundle(results_dir: Path, inputs: BuildBundleInputs) -> Path:
    """Write the build bundle under ``results_dir`` atomically; its folder."""
    summary = {
        "schema": BUNDLE_SCHEMA,
        "kind": KIND,
        "status": BUILT,
        "identity": {"board": inputs.board, "engine": inputs.engine, "backend": inputs.backend,
                     "engine_libraries": list(inputs.engine_libraries),
                     "model_sha256": inputs.model_sha256, "toolchain": inputs.toolchain,
                     "engine_code": inputs.engine_code},
        "elf": ELF,
        "work_dir": str(inputs.work_dir),
        "note": inputs.note,
    }
    files = {
        ELF: inputs.elf.read_bytes(),
        "summary.json": dump_json(summary),
        "build.json": dump_json(dict(inputs.build)),
        "placement.json": dump_json(dict(inputs.placement)),
        "kernel_checks.json": dump_json(list(inputs.kernel_checks)),
        "config.json": dump_json(dict(inputs.config)),
        "provenance.json": dump_json(dict(inputs.provenance)),
    }
    name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{inputs.board}-{inputs.engine}-built"
    return write_folder(results_dir, name, files, BUILT)


@attrs.frozen
class BuiltFirmware:
    """A verified build bundle, read back: what ``hpx run`` needs to run it and record it."""

    path: Path
    board: str
    engine: str
    backend: str | None
    model_sha256: str | None
    toolchain: str
    work_dir: Path
    build: Mapping[str, Any]
    kernel_checks: tuple[Mapping[str, Any], ...]
    config: Mapping[str, Any]
    provenance: Mapping[str, Any]
    engine_libraries: tuple[str, ...] = ()
    engine_code: str | None = None

    @property
    def elf(self) -> Path:
        return self.path / ELF


def bundle_kind(path: Path) -> str | None:
    """The ``kind`` a bundle's summary says (``build``, ``validation``; None for a result
    bundle or a folder that is none), unverified: it is verified when read."""
    try:
        summary = json.loads((path / "summary.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    kind = summary.get("kind") if isinstance(summary, dict) else None
    return kind if isinstance(kind, str) else None


def is_build_bundle(path: Path) -> bool:
    """Whether ``path`` looks like a build bundle (it is verified when read)."""
    return bundle_kind(path) == KIND


def read_build_bundle(path: Path) -> BuiltFirmware:
    """Verify ``path`` against its manifest, then read it; ResultsError if it fails either."""
    check = verify_bundle(path)
    try:
        summary = json.loads((path / "summary.json").read_text("utf-8"))
        identity = summary["identity"]
        if summary.get("kind") != KIND or check.status != BUILT or ELF not in check.files:
            raise KeyError("kind")
        return BuiltFirmware(
            path=path, board=str(identity["board"]), engine=str(identity["engine"]),
            backend=identity.get("backend"), model_sha256=identity.get("model_sha256"),
            toolchain=str(identity.get("toolchain", "")), work_dir=Path(summary["work_dir"]),
            build=_json(path, "build.json"),
            kernel_checks=tuple(json.loads((path / "kernel_checks.json").read_text("utf-8"))),
            config=_json(path, "config.json"), provenance=_json(path, "provenance.json"),
            engine_libraries=tuple(str(x) for x in identity.get("engine_libraries") or ()),
            engine_code=identity.get("engine_code"),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ResultsError(
            f"{path} is not a build bundle ({error})",
            "point at a folder `hpx build MODEL` wrote",
        ) from None


def _json(path: Path, name: str) -> dict[str, Any]:
    data = json.loads((path / name).read_text("utf-8"))
    if not isinstance(data, dict):
        raise TypeError(f"{name} is not an object")
    return data

"""Result bundles: written whole or not at all, and verifiable afterwards.

A bundle is a folder. It is assembled in a temporary sibling folder and renamed into place, so
a reader never sees half a bundle; failed runs get a bundle too (status ``failed`` with the
error). Every bundle has ``trace.json``, its counts as a Chrome trace (:mod:`.trace`).
``manifest.json`` is written last and lists the SHA-256 and size of every other file;
:mod:`hpx_core.results.verify` checks a bundle against it.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.errors import HpxError
from hpx_core.results.bundle_schema import BUNDLE_SCHEMA
from hpx_core.results.measure import Measurement
from hpx_core.results.outputs import Outputs
from hpx_core.results.trace import trace_json
from hpx_core.results.verify import MANIFEST

Status = Literal["complete", "failed"]
EMULATED_UNITS = "instructions (emulated)"
EMULATED_CAVEAT = (
    "Counts are instructions executed under QEMU -icount, not cycles: no pipeline, wait states "
    "or memory timing; a low-overhead loop's `le` counts every iteration and an MVE "
    "instruction counts as one. Compare emulated results only with emulated results."
)


@attrs.frozen
class BundleInputs:
    """Everything a bundle records; absent parts are simply left out (and say so)."""

    board: str
    engine: str
    status: Status
    counter_units: str
    backend: str | None = None
    engine_libraries: tuple[str, ...] = ()  # each library's name-key (LibraryUse.label)
    engine_code: str | None = None  # SHA-256 of the engine's shipped files and glue
    error: HpxError | None = None
    measurement: Measurement | None = None
    capture: bytes | None = None
    model_sha256: str | None = None
    toolchain: str | None = None
    config: Mapping[str, Any] | None = None
    build: Mapping[str, Any] | None = None
    run: Mapping[str, Any] | None = None
    provenance: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] | None = None
    files: Mapping[str, bytes] = attrs.field(factory=dict)  # the engine's and passes' files
    sections: Mapping[str, Any] = attrs.field(factory=dict)  # summary sections of the passes
    logs: Mapping[str, bytes] | None = None  # file name -> the log's bytes (e.g. run.log)
    outputs: Outputs | None = None  # the device's outputs against the host's, or why not


def _measurement_json(m: Measurement) -> dict[str, Any]:
    return {
        "units": m.units,
        "raw_units": m.raw_units,
        "per_raw_unit": str(m.per_raw_unit),
        "calibration": {"pair": m.calibration, "pair_raw_mean": str(m.calibration_raw)},
        "whole_inference": {
            "median": m.whole_median,
            "samples": list(m.whole),
            "raw": list(m.whole_raw),
        },
        "layers": [
            {
                "index": layer.index,
                "name": layer.name,
                "op": layer.op,
                "calls": layer.calls,
                "median": layer.median,
                "spread": layer.spread,
                "samples": list(layer.counts),
                "raw": list(layer.raw),
                **({"events": dict(layer.events)} if layer.events else {}),
            }
            for layer in m.layers
        ],
        "layer_sum": m.layer_sum,
    }


def _summary(inputs: BundleInputs) -> dict[str, Any]:
    m = inputs.measurement
    summary: dict[str, Any] = {
        "schema": BUNDLE_SCHEMA,
        "status": inputs.status,
        "identity": {
            "board": inputs.board,
            "engine": inputs.engine,
            "backend": inputs.backend,
            "engine_libraries": list(inputs.engine_libraries),
            "engine_code": inputs.engine_code,
            "model_sha256": inputs.model_sha256,
            "toolchain": inputs.toolchain,
            "counter_units": inputs.counter_units,
        },
        "validity": m.validity if m else "invalid",
        "issues": list(m.issues) if m else [],
        "error": None
        if inputs.error is None
        else {
            "type": type(inputs.error).__name__,
            "message": inputs.error.message,
            "hint": inputs.error.hint,
        },
        "measurement": _measurement_json(m) if m else None,
    }
    if inputs.counter_units == EMULATED_UNITS:
        summary["caveat"] = EMULATED_CAVEAT
    if inputs.extra:
        summary["extra"] = dict(inputs.extra)
    summary |= dict(inputs.sections)  # the uncounted passes' own sections (layer_check, ...)
    if inputs.outputs is not None:
        summary["outputs"] = inputs.outputs.to_json()
    return summary


def _layers_csv(m: Measurement) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["index", "name", "op", "calls", "median", "min", "max", "units", "raw_median"])
    for layer in m.layers:
        raw_sorted = sorted(layer.raw)
        writer.writerow(
            [
                layer.index,
                layer.name,
                layer.op,
                layer.calls,
                layer.median,
                min(layer.counts),
                max(layer.counts),
                m.units,
                raw_sorted[len(raw_sorted) // 2],
            ]
        )
    return out.getvalue()


def dump_json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, default=str) + "\n").encode()


def _trace(inputs: BundleInputs) -> dict[str, Any]:
    """The run's trace, with the events each installed pass adds from its files."""
    energy = (inputs.sections or {}).get("energy") or {}
    layer_uj = {int(x["index"]): float(x["median_uj"]) for x in energy.get("layers", ())}
    trace = trace_json(inputs.measurement, f"{inputs.board} {inputs.engine}",
                       inputs.counter_units, layer_uj)
    if not inputs.files:
        return trace
    from hpx_core.results.extensions import bundle_extensions

    for found in bundle_extensions():
        own = {name: json.loads(inputs.files[name]) for name in found.schemas
               if name in inputs.files}
        if own:
            trace["traceEvents"] += found.trace_events(own, trace["traceEvents"])
    return trace


def _files(inputs: BundleInputs) -> dict[str, bytes]:
    files = {name: data for name, data in inputs.files.items() if _plain_name(name)}
    files["summary.json"] = dump_json(_summary(inputs))
    files["trace.json"] = dump_json(_trace(inputs))
    if inputs.measurement:
        files["layers.csv"] = _layers_csv(inputs.measurement).encode()
    if inputs.capture is not None:
        files["capture.bin"] = inputs.capture
    for name, part in (
        ("config.json", inputs.config),
        ("build.json", inputs.build),
        ("run.json", inputs.run),
        ("provenance.json", inputs.provenance),
    ):
        if part is not None:
            files[name] = dump_json(dict(part))
    for name, data in (inputs.logs or {}).items():
        files[Path(name).name] = data
    return files


def _plain_name(name: str) -> bool:
    """An engine's file lands beside summary.json only under a plain, non-reserved name."""
    reserved = {MANIFEST, "summary.json", "layers.csv", "capture.bin", "trace.json"}
    return bool(name) and "/" not in name and not name.startswith(".") and name not in reserved


def _entry(path: Path) -> dict[str, Any]:
    """A file's manifest entry, hashed as it is read: a capture of many MiB is never held
    twice."""
    with path.open("rb") as file:
        digest = hashlib.file_digest(file, "sha256").hexdigest()
    return {"sha256": digest, "size": path.stat().st_size}


def write_bundle(results_dir: Path, inputs: BundleInputs, name: str | None = None) -> Path:
    """Write a bundle under ``results_dir`` atomically and return its folder."""
    name = (
        name
        or f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{inputs.board}-"
        f"{inputs.engine}-{inputs.status}"
    )
    return write_folder(results_dir, name, _files(inputs), inputs.status)


def write_folder(results_dir: Path, name: str, files: Mapping[str, bytes], status: str) -> Path:
    """``files`` and their manifest as a new folder ``name`` (``name-2``, ... if taken) under
    ``results_dir``: assembled in a temporary sibling and renamed into place.

    The name is claimed by the rename itself, which fails when another writer got there first
    (then the next suffix is tried), so runs finishing at once never lose a bundle. What a
    killed writer left (``.tmp-bundle-<host>-<pid>-*`` of a process that is gone) is removed
    by the next writer into the folder.
    """
    results_dir.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(results_dir)
    tmp = Path(tempfile.mkdtemp(prefix=f"{_TMP_PREFIX}{_host()}-{os.getpid()}-",
                                dir=results_dir))
    try:
        for rel, data in files.items():
            (tmp / rel).write_bytes(data)
        manifest = {
            "schema": BUNDLE_SCHEMA,
            "status": status,
            "files": {p.name: _entry(p) for p in sorted(tmp.iterdir())},
        }
        (tmp / MANIFEST).write_bytes(dump_json(manifest))
        return _claim(tmp, results_dir, name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


_TMP_PREFIX = ".tmp-bundle-"
_ABANDONED_AFTER_S = 24 * 3600.0  # a writer from another host (or a reused pid) this old is gone


def _claim(tmp: Path, results_dir: Path, name: str) -> Path:
    """Rename ``tmp`` to the first free name of ``name``, ``name-2``, ...; the rename fails
    on a name another writer holds, so a name is never taken twice."""
    suffix = 1
    while True:
        final = results_dir / (name if suffix == 1 else f"{name}-{suffix}")
        if not final.exists():
            try:
                tmp.rename(final)
                return final
            except OSError as error:
                if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
        suffix += 1


def _host() -> str:
    return "".join(c for c in socket.gethostname() if c.isalnum())[:32] or "host"


def _remove_abandoned(results_dir: Path) -> None:
    """Remove temporary bundles whose writer is gone (killed during its rename)."""
    host, now = _host(), time.time()
    for stale in results_dir.glob(f"{_TMP_PREFIX}*"):
        parts = stale.name[len(_TMP_PREFIX):].split("-")
        try:
            mine = len(parts) >= 3 and parts[0] == host and not _alive(int(parts[1]))
            old = now - stale.stat().st_mtime > _ABANDONED_AFTER_S
        except (OSError, ValueError):
            continue
        if mine or old:
            shutil.rmtree(stale, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

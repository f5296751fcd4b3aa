"""Result bundles: written whole or not at all, and verifiable afterwards.

A bundle is a folder. It is assembled in a temporary sibling folder and renamed into place, so
a reader never sees half a bundle; failed runs get a bundle too (status ``failed`` with the
error). Every bundle has ``trace.json``, its counts as a Chrome trace (:mod:`.trace`).
``manifest.json`` is written last and lists the SHA-256 and size of every other file;
:mod:`hpx_core.results.verify` checks a bundle against it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs

from hpx_core.errors import HpxError
from hpx_core.results.bundle_schema import BUNDLE_SCHEMA
from hpx_core.results.measure import Measurement
from hpx_core.results.outputs import OutputVerdict
from hpx_core.results.trace import trace_json
from hpx_core.results.verify import MANIFEST

if TYPE_CHECKING:  # the layer check's NumPy loads only when a run checks layers
    from hpx_core.results.layer_check import LayerCheck

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
    files: Mapping[str, bytes] = attrs.field(factory=dict)  # the engine's files, by name
    layer_check: LayerCheck | None = None
    logs: Mapping[str, bytes] | None = None  # file name -> the log's bytes (e.g. run.log)
    outputs: OutputVerdict | None = None  # the device's outputs against the host reference


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
    if inputs.layer_check is not None:
        summary["layer_check"] = inputs.layer_check.to_json()
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


def _files(inputs: BundleInputs) -> dict[str, bytes]:
    files = {name: data for name, data in inputs.files.items() if _plain_name(name)}
    if inputs.layer_check is not None:
        files |= inputs.layer_check.files()
    files["summary.json"] = dump_json(_summary(inputs))
    files["trace.json"] = dump_json(trace_json(inputs.measurement,
                                               f"{inputs.board} {inputs.engine}",
                                               inputs.counter_units))
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
    data = path.read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


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
    ``results_dir``: assembled in a temporary sibling and renamed into place."""
    results_dir.mkdir(parents=True, exist_ok=True)
    final = results_dir / name
    suffix = 1
    while final.exists():
        suffix += 1
        final = results_dir / f"{name}-{suffix}"
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-bundle-", dir=results_dir))
    try:
        for rel, data in files.items():
            (tmp / rel).write_bytes(data)
        manifest = {
            "schema": BUNDLE_SCHEMA,
            "status": status,
            "files": {p.name: _entry(p) for p in sorted(tmp.iterdir())},
        }
        (tmp / MANIFEST).write_bytes(dump_json(manifest))
        tmp.rename(final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final

"""The validation bundle: what ``hpx validate`` found, verified like every bundle.

``summary.json`` (kind ``validation``: identity, the data set, the headline per output),
``validation.json`` (every output's figures, the worst samples, the histogram of per-sample
error, the first window's counted passes), ``samples.jsonl`` (a line per sample), the config
and provenance; assembled aside and renamed (:func:`hpx_core.results.bundle.write_folder`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from hpx_core.errors import ResultsError
from hpx_core.pipeline.facts import config_json, source_provenance
from hpx_core.pipeline.products import need
from hpx_core.plugins import Registry
from hpx_core.results.build_bundle import bundle_kind
from hpx_core.results.bundle import dump_json, write_folder
from hpx_core.results.bundle_schema import BUNDLE_SCHEMA
from hpx_core.results.verify import verify_bundle
from hpx_core.run.record import provenance
from hpx_core.validation.run import Validation
from hpx_core.wire.capture import Capture

KIND = "validation"
STATUS = "validated"
DOCUMENT = "validation.json"
SAMPLES = "samples.jsonl"


def headline(output: dict[str, Any]) -> dict[str, Any]:
    """The figures a summary and a comparison read of one output."""
    keys = ("tensor", "mean_abs_error", "rmse", "l2_relative", "cosine", "differing_share",
            "max_abs_diff", "top1_agreement", "accuracy")
    return {k: output[k] for k in keys if k in output}


def validation_document(found: Validation) -> dict[str, Any]:
    data = found.data
    return {
        "data": {"sources": [str(s.path) for s in data.sources], "samples": data.count,
                 "labelled": data.labels is not None, "notes": list(data.notes),
                 "saturated": data.saturation.shares(),
                 "reference": ("the data set's expected outputs" if data.has_expected
                               else "the engine's host reference (hpx_host_outputs)")},
        "outputs": [score.document() for score in found.scores],
        "speed": {"seconds": round(found.seconds, 3),
                  "device_seconds": round(found.device_seconds, 3),
                  "samples_per_second": round(data.count / max(found.device_seconds, 1e-9), 1)
                  if found.device_seconds else None,
                  "resumed_samples": found.resumed},
        "counted": _counted(found.first_capture),
    }


def _counted(capture: Capture | None) -> dict[str, Any] | None:
    """The first window's counted passes (the engine's own input, before the data set): raw
    whole-inference counts and the calibration pair, in the counter's units."""
    if capture is None:
        return None
    start, cal = capture.start, capture.first("CAL")
    return {"units": start.text("units"),
            "whole_raw": [r.number("raw") for r in capture.of("WHOLE")],
            "calibration_min": cal.number("min") if cal is not None else None}


def write_validation(found: Validation, results_dir: Path, registry: Registry) -> Path:
    """Write the bundle under ``results_dir`` atomically; its folder."""
    outcome = found.outcome
    engine, board = outcome.config.engine, outcome.board
    built = need(outcome.build, "build")
    document = validation_document(found)
    summary = {
        "schema": BUNDLE_SCHEMA, "kind": KIND, "status": STATUS,
        "identity": {"board": board.name, "engine": engine.type, "backend": engine.backend,
                     "model_sha256": need(outcome.model, "model").sha256,
                     "toolchain": f"{built.toolchain} {built.toolchain_version}"},
        "data": document["data"],
        "outputs": [headline(o) for o in document["outputs"]],
        "file": DOCUMENT,
    }
    files = {
        "summary.json": dump_json(summary),
        DOCUMENT: dump_json(document),
        SAMPLES: found.samples_file.read_bytes(),
        "config.json": dump_json(config_json(outcome.validated)),
        "provenance.json": dump_json(provenance(
            None, source_provenance(outcome.sources, registry.catalog))),
    }
    name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{board.name}-{engine.type}-{KIND}"
    return write_folder(results_dir, name, files, STATUS)


def is_validation_bundle(path: Path) -> bool:
    """Whether ``path`` looks like a validation bundle (it is verified when read)."""
    return bundle_kind(path) == KIND


def read_validation(path: Path) -> dict[str, Any]:
    """The verified bundle's ``validation.json`` with its summary's identity."""
    check = verify_bundle(path)
    summary = check.documents.get("summary.json", {})
    if summary.get("kind") != KIND or DOCUMENT not in check.documents:
        raise ResultsError(f"{path} is not a validation bundle",
                           "point at a folder hpx validate wrote")
    return {"identity": summary["identity"], **check.documents[DOCUMENT]}

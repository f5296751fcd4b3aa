"""``hpx calibrate``: per-class cycle costs fitted on a user's own silicon board.

Input is pairs of bundles of the same model and build: one from an emulated board with a cycle
estimate (``cycle_estimate.json``: each layer's instructions by class per inference), one
measured on the silicon board. The fit finds, per instruction class, the cycles one instruction
of that class costs on that board: measured layer cycles = sum over classes of cost x count.
It starts from the model's own costs (its estimated cycles per class over its instructions per
class, pooled over the layers given) and moves only as far as the layers determine (the
smallest change that fits, by least squares), so a class the layers cannot tell apart keeps the
model's cost. Its error is reported leaving one model out at a time: fit on the others, predict
that one.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.errors import UsageError
from hpx_core.insight.classes import CLASSES
from hpx_core.insight.cycles.estimate import FILE_NAME as ESTIMATE_FILE
from hpx_core.insight.cycles.estimate import MODEL_VERSION
from hpx_core.results.view import BundleView, load_view

SCHEMA_ID = "hpx.calibration/1"


@attrs.frozen
class Row:
    """One layer: its instructions by class, the model's cycles and the board's."""

    model: str
    layer: int
    counts: tuple[float, ...]
    estimated: tuple[float, ...]
    measured: float


@attrs.frozen
class Calibration:
    board: str
    costs: dict[str, float]  # cycles per instruction, by class
    prior: dict[str, float]
    rows: int
    models: tuple[str, ...]
    lomo_layer_error: float | None  # median absolute relative error, leaving one model out
    lomo_model_errors: dict[str, float]  # per model: its layers' sum, predicted vs measured

    def predict(self, counts: Mapping[str, float]) -> float:
        return sum(self.costs[k] * counts.get(k, 0.0) for k in CLASSES)

    def document(self) -> dict[str, Any]:
        return {"schema": SCHEMA_ID, "model": MODEL_VERSION, "board": self.board,
                "costs": self.costs, "prior": self.prior, "layers": self.rows,
                "models": list(self.models),
                "leave_one_model_out": {"median_layer_error": self.lomo_layer_error,
                                        "model_errors": self.lomo_model_errors}}


def _estimate_of(view: BundleView) -> dict[str, Any] | None:
    path = view.path / ESTIMATE_FILE
    if not path.is_file():
        return None
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def rows_of(estimated: BundleView, measured: BundleView) -> list[Row]:
    """Each layer both bundles have: the estimate's counts and classes, the board's median."""
    document = _estimate_of(estimated)
    if document is None:
        raise UsageError(f"{estimated.path.name} has no {ESTIMATE_FILE}",
                         "profile on the emulated board with --estimate-for BOARD")
    if document["board"] != measured.board:
        raise UsageError(f"{estimated.path.name} estimates {document['board']}, "
                         f"{measured.path.name} was measured on {measured.board}",
                         "pair bundles of the same silicon board")
    medians = {layer.index: layer.median for layer in measured.layers}
    rows = []
    for layer in document["layers"]:
        if layer["index"] in medians:
            rows.append(Row(str(estimated.model_sha256), int(layer["index"]),
                            tuple(float(layer["counts"].get(k, 0.0)) for k in CLASSES),
                            tuple(float(layer["classes"].get(k, 0.0)) for k in CLASSES),
                            float(medians[layer["index"]])))
    return rows


def pair_bundles(paths: Sequence[Path]) -> tuple[str, list[Row]]:
    """Read ``paths`` and pair each estimated bundle with the measured one of its model."""
    views = [load_view(p) for p in paths]
    estimated = [v for v in views if v.emulated]
    measured = {v.model_sha256: v for v in views if not v.emulated}
    if not estimated or not measured:
        raise UsageError("hpx calibrate needs estimated (emulated) and measured (silicon) "
                         "bundles", "give pairs: the same model profiled on both")
    rows: list[Row] = []
    for view in estimated:
        partner = measured.get(view.model_sha256)
        if partner is None:
            raise UsageError(f"no measured bundle of the model of {view.path.name}",
                             "give the silicon run of the same model and build")
        rows += rows_of(view, partner)
    boards = {v.board for v in measured.values()}
    if len(boards) != 1:
        raise UsageError(f"measured bundles of {len(boards)} boards ({', '.join(boards)})",
                         "calibrate one board at a time")
    return boards.pop(), rows


def fit(rows: Sequence[Row]) -> tuple[dict[str, float], dict[str, float]]:
    """Per-class costs and the model's own (the prior the fit moves from)."""
    import numpy as np

    counts = np.array([r.counts for r in rows])
    estimated = np.array([r.estimated for r in rows])
    measured = np.array([r.measured for r in rows])
    per_class = counts.sum(axis=0)
    prior = np.divide(estimated.sum(axis=0), per_class, out=np.zeros(len(CLASSES)),
                      where=per_class > 0)
    change, *_ = np.linalg.lstsq(counts, measured - counts @ prior, rcond=None)
    costs = prior + change
    return ({k: float(v) for k, v in zip(CLASSES, costs, strict=True)},
            {k: float(v) for k, v in zip(CLASSES, prior, strict=True)})


def _lomo(rows: Sequence[Row]) -> tuple[float | None, dict[str, float]]:
    models = sorted({r.model for r in rows})
    if len(models) < 2:
        return None, {}
    errors: list[float] = []
    per_model: dict[str, float] = {}
    for left_out in models:
        costs, _ = fit([r for r in rows if r.model != left_out])
        held = [r for r in rows if r.model == left_out]
        predicted = [sum(c * n for c, n in zip(costs.values(), r.counts, strict=True))
                     for r in held]
        errors += [abs(p - r.measured) / r.measured for p, r in zip(predicted, held,
                                                                    strict=True) if r.measured]
        total = sum(r.measured for r in held)
        per_model[left_out] = (sum(predicted) - total) / total if total else 0.0
    return statistics.median(errors) if errors else None, per_model


def calibrate(paths: Sequence[Path]) -> Calibration:
    """Fit ``paths`` (estimated and measured bundles, paired by model)."""
    board, rows = pair_bundles(paths)
    costs, prior = fit(rows)
    layer_error, model_errors = _lomo(rows)
    return Calibration(board, costs, prior, len(rows), tuple(sorted({r.model for r in rows})),
                       layer_error, model_errors)


def load_calibration(path: Path, board: str) -> dict[str, float]:
    """The per-class costs of a calibration file made for ``board``."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read the calibration {path}: {error}",
                         "give a file hpx calibrate wrote") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA_ID:
        raise UsageError(f"{path} is not an hpx calibration", "give a file hpx calibrate wrote")
    if document.get("board") != board:
        raise UsageError(f"{path} calibrates {document.get('board')}, not {board}",
                         f"calibrate on {board}'s own bundles")
    return {k: float(document["costs"].get(k, 0.0)) for k in CLASSES}

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

import math
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.sdk.bundles import BundleView, load_view
from hpx_core.sdk.passes import UsageError, read_regular, strict_json
from hpx_insight.classes import CLASSES
from hpx_insight.cycles.estimate import FILE_NAME as ESTIMATE_FILE
from hpx_insight.cycles.estimate import MODEL_VERSION
from hpx_insight.energy_law import EnergyLaw, energy_rows, fit_energy
from hpx_insight.schemas import MAX_ESTIMATED_CYCLES

SCHEMA_ID = "hpx.calibration/1"
MAX_COST = 1000.0
"""The most cycles one instruction may cost in a calibration. The slowest Cortex-M
instructions (a divide, a load from flash behind wait states) take tens of cycles; a fit
past this bound says the pairs do not belong together, not something about the board."""
MAX_FILE_BYTES = 1 << 20  # hpx calibrate writes about 2 KiB
_COST = {"type": "number", "minimum": 0, "maximum": MAX_COST}
_COSTS = {"type": "object", "required": list(CLASSES), "additionalProperties": False,
          "properties": {name: _COST for name in CLASSES}}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["schema", "board", "costs"],
    "properties": {
        "schema": {"const": SCHEMA_ID}, "model": {"type": "string"},
        "board": {"type": "string"}, "costs": _COSTS, "prior": {"type": "object"},
        "layers": {"type": "integer", "minimum": 0},
        "models": {"type": "array", "items": {"type": "string"}},
        "leave_one_model_out": {"type": "object"},
        "energy": {"type": "object", "required": ["per"], "properties": {
            "per": {"type": "object", "additionalProperties": {"type": "number"}}}},
    },
}
"""What a calibration file must be: every class's cost present, finite, within bounds."""
_FROM_CALIBRATE = "give a file hpx calibrate wrote"


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
    energy: EnergyLaw | None = None  # µJ per layer, when the measured bundles have energy

    def predict(self, counts: Mapping[str, float]) -> float:
        return sum(self.costs[k] * counts.get(k, 0.0) for k in CLASSES)

    def document(self) -> dict[str, Any]:
        return {"schema": SCHEMA_ID, "model": MODEL_VERSION, "board": self.board,
                "costs": self.costs, "prior": self.prior, "layers": self.rows,
                "models": list(self.models),
                "leave_one_model_out": {"median_layer_error": self.lomo_layer_error,
                                        "model_errors": self.lomo_model_errors},
                **({"energy": self.energy.document()} if self.energy else {})}


def _medians(measured: BundleView) -> dict[int, int]:
    """Each measured layer's median, refused when no board can have measured it."""
    for layer in measured.layers:
        if not 0 <= layer.median <= MAX_ESTIMATED_CYCLES:
            raise UsageError(f"{measured.path.name}: layer {layer.index} measured "
                             f"{layer.median:,} cycles, which no board measures",
                             "give bundles hpx profile measured on the board, unedited")
    return {layer.index: layer.median for layer in measured.layers}


def rows_of(estimated: BundleView, measured: BundleView) -> list[Row]:
    """Each layer both bundles have: the estimate's counts and classes, the board's median.

    The estimate is the bundle's verified, schema-checked document (finite, non-negative,
    bounded numbers), never the file read again."""
    document = estimated.pass_documents.get(ESTIMATE_FILE)
    if document is None:
        raise UsageError(f"{estimated.path.name} has no {ESTIMATE_FILE}",
                         "profile on the emulated board with --estimate-for BOARD")
    if document["board"] != measured.board:
        raise UsageError(f"{estimated.path.name} estimates {document['board']}, "
                         f"{measured.path.name} was measured on {measured.board}",
                         "pair bundles of the same silicon board")
    return estimate_rows(document, _medians(measured), str(estimated.model_sha256))


def estimate_rows(document: Mapping[str, Any], medians: Mapping[int, int], model: str
                  ) -> list[Row]:
    """The rows of an estimate document (of the bundle schema's shape) for the layers
    ``medians`` measured."""
    return [Row(model, int(layer["index"]),
                tuple(float(layer["counts"].get(k, 0.0)) for k in CLASSES),
                tuple(float(layer["classes"].get(k, 0.0)) for k in CLASSES),
                float(medians[layer["index"]]))
            for layer in document["layers"] if layer["index"] in medians]


def pair_bundles(paths: Sequence[Path]) -> tuple[str, list[Row]]:
    """Read ``paths`` and pair each estimated bundle with the measured one of its model."""
    board, pairs = pair_views(paths)
    return board, [row for estimated, measured in pairs for row in rows_of(estimated, measured)]


def pair_views(paths: Sequence[Path]) -> tuple[str, list[tuple[BundleView, BundleView]]]:
    """Each estimated bundle of ``paths`` with the measured one of its model, and the board."""
    views = [load_view(p) for p in paths]
    estimated = [v for v in views if v.emulated]
    measured = {v.model_sha256: v for v in views if not v.emulated}
    if not estimated or not measured:
        raise UsageError("hpx calibrate needs estimated (emulated) and measured (silicon) "
                         "bundles", "give pairs: the same model profiled on both")
    pairs: list[tuple[BundleView, BundleView]] = []
    for view in estimated:
        partner = measured.get(view.model_sha256)
        if partner is None:
            raise UsageError(f"no measured bundle of the model of {view.path.name}",
                             "give the silicon run of the same model and build")
        pairs.append((view, partner))
    boards = {v.board for v in measured.values()}
    if len(boards) != 1:
        raise UsageError(f"measured bundles of {len(boards)} boards ({', '.join(boards)})",
                         "calibrate one board at a time")
    return boards.pop(), pairs


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


def _checked(costs: Mapping[str, float]) -> None:
    """Refuse a fit no board can have: a class that costs less than nothing or more than
    :data:`MAX_COST` cycles says the layers were not measured from the estimated build."""
    for name, cost in costs.items():
        if not (math.isfinite(cost) and -1e-9 <= cost <= MAX_COST):
            raise UsageError(
                f"the fit gives {name} instructions {cost:.4g} cycles each, which no board "
                "costs", "pair each estimate with the silicon run of the same model and "
                "build, and give more models so each class is measured")


def calibrate(paths: Sequence[Path]) -> Calibration:
    """Fit ``paths`` (estimated and measured bundles, paired by model): the cycles, and the
    energy when the measured bundles have it."""
    board, pairs = pair_views(paths)
    rows = [row for estimated, measured in pairs for row in rows_of(estimated, measured)]
    energy = fit_energy([r for e, m in pairs for r in energy_rows(e, m)])
    return attrs.evolve(fit_rows(board, rows), energy=energy)


def fit_rows(board: str, rows: Sequence[Row]) -> Calibration:
    """The calibration of ``board`` from paired layers, refused when no board can have it."""
    if not rows:
        raise UsageError("the estimated and measured bundles share no layer",
                         "pair bundles of the same model and build")
    costs, prior = fit(rows)
    _checked(costs)
    costs = {name: max(cost, 0.0) for name, cost in costs.items()}  # -1e-9 is rounding
    layer_error, model_errors = _lomo(rows)
    return Calibration(board, costs, prior, len(rows), tuple(sorted({r.model for r in rows})),
                       layer_error, model_errors)


def load_calibration(path: Path, board: str) -> dict[str, float]:
    """The per-class costs of a calibration file made for ``board``: read only if it is a
    regular file of a sane size, then checked by :data:`SCHEMA`."""
    data = read_regular(path, limit=MAX_FILE_BYTES, what="calibration", hint=_FROM_CALIBRATE)
    return parse_calibration(data, path, board)


def load_energy_law(path: Path, board: str) -> dict[str, float] | None:
    """The energy law of a calibration file made for ``board`` (None: it has none)."""
    data = read_regular(path, limit=MAX_FILE_BYTES, what="calibration", hint=_FROM_CALIBRATE)
    parse_calibration(data, path, board)
    energy = strict_json(data).get("energy")
    return None if energy is None else {k: float(v) for k, v in energy["per"].items()}


def parse_calibration(data: bytes, path: Path, board: str) -> dict[str, float]:
    """The per-class costs in ``data`` (the bytes of ``path``), or one UsageError."""
    from hpx_core.sdk.passes import schema_problem

    try:
        document = strict_json(data)
    except ValueError as error:
        raise UsageError(f"the calibration {path} is not JSON ({error})",
                         _FROM_CALIBRATE) from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA_ID:
        raise UsageError(f"{path} is not an hpx calibration", _FROM_CALIBRATE)
    problem = schema_problem(SCHEMA, document)
    if problem:
        raise UsageError(f"the calibration {path} is damaged: {problem}", _FROM_CALIBRATE)
    if document["board"] != board:
        raise UsageError(f"{path} calibrates {document['board']}, not {board}",
                         f"calibrate on {board}'s own bundles")
    return {k: float(document["costs"][k]) for k in CLASSES}

"""Energy estimates calibrated on a user's own measured bundles.

A layer's energy on a board is modelled as a linear law of what the emulated run says it does:
µJ = a x its estimated cycles + the sum over memory regions of b_region x the bytes it moves
there (read and written, per inference, from the instruction profile). ``hpx calibrate`` fits
the coefficients on pairs of bundles (an emulated run with ``--estimate-for BOARD``, the same
model measured on that board with ``--power``) by least squares, and reports the error of
predicting what it was not fitted on: leaving one model out when two or more were given, else
one layer. No coefficient comes from anywhere else, so without a calibration there is no
energy estimate. A feature no layer exercises (a region no layer touches) keeps no coefficient.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hpx_core.sdk.bundles import BundleView
from hpx_core.sdk.passes import UsageError
from hpx_insight.schemas import ESTIMATE_FILE, PROFILE_FILE

CYCLES = "cycles"
BYTES = "bytes."  # bytes.<region>


@attrs.frozen
class EnergyRow:
    """One layer: its features (estimated cycles, bytes per region, per inference) and the
    µJ the board measured for it."""

    model: str
    layer: int
    features: Mapping[str, float]
    measured_uj: float


@attrs.frozen
class EnergyLaw:
    """µJ per unit of each feature, how many layers and models it was fitted on, and the
    median relative error of predicting what it was not fitted on (``held_out``: model or
    layer)."""

    per: dict[str, float]
    layers: int
    models: tuple[str, ...]
    error: float | None
    held_out: str

    def predict(self, features: Mapping[str, float]) -> float:
        return sum(c * features.get(name, 0.0) for name, c in self.per.items())

    def document(self) -> dict[str, Any]:
        return {"unit": "uJ", "per": self.per, "layers": self.layers,
                "models": list(self.models),
                "leave_one_out": {"held_out": self.held_out, "median_error": self.error}}


def layer_features(estimate: Mapping[str, Any], profile: Mapping[str, Any] | None
                   ) -> dict[int, dict[str, float]]:
    """Each layer's features from an estimate document and the instruction profile beside it."""
    found = {int(s["index"]): {CYCLES: float(s["estimated_cycles"])} for s in estimate["layers"]}
    if profile is not None:
        passes = max(int(profile.get("passes", 1)), 1)
        for layer in profile["layers"]:
            slot = found.get(int(layer["index"]))
            if slot is None:
                continue
            for region, use in layer["memory"].items():
                moved = float(use["bytes_read"]) + float(use["bytes_written"])
                slot[f"{BYTES}{region}"] = moved / passes
    return found


def energy_rows(estimated: BundleView, measured: BundleView) -> list[EnergyRow]:
    """The layers both bundles have, with the measured µJ; none when ``measured`` has no
    energy (a run without --power)."""
    energy = measured.energy or {}
    if "layers" not in energy:
        return []
    document = estimated.pass_documents[ESTIMATE_FILE]
    features = layer_features(document, estimated.pass_documents.get(PROFILE_FILE))
    model = str(estimated.model_sha256)
    return [EnergyRow(model, int(x["index"]), features[int(x["index"])], float(x["median_uj"]))
            for x in energy["layers"] if int(x["index"]) in features]


def _solve(rows: Sequence[EnergyRow]) -> dict[str, float]:
    import numpy as np

    names = sorted({n for r in rows for n, v in r.features.items() if v})
    if not names:
        raise UsageError("the estimated layers do no work to fit energy on",
                         "pair bundles of a model whose layers run")
    matrix = np.array([[r.features.get(n, 0.0) for n in names] for r in rows])
    solved, *_ = np.linalg.lstsq(matrix, np.array([r.measured_uj for r in rows]), rcond=None)
    return {n: float(v) for n, v in zip(names, solved, strict=True)}


def _held_out_error(rows: Sequence[EnergyRow]) -> tuple[float | None, str]:
    models = sorted({r.model for r in rows})
    by_model = len(models) >= 2
    groups = ([[r for r in rows if r.model == m] for m in models] if by_model
              else [[r] for r in rows])
    errors: list[float] = []
    for held in groups:
        rest = [r for r in rows if r not in held]
        if not rest:
            continue
        law = _solve(rest)
        errors += [abs(sum(c * r.features.get(n, 0.0) for n, c in law.items())
                       - r.measured_uj) / r.measured_uj for r in held if r.measured_uj]
    return (statistics.median(errors) if errors else None), ("model" if by_model else "layer")


def fit_energy(rows: Sequence[EnergyRow]) -> EnergyLaw | None:
    """The law of ``rows`` (None without measured energy)."""
    if not rows:
        return None
    error, held_out = _held_out_error(rows)
    return EnergyLaw(_solve(rows), len(rows), tuple(sorted({r.model for r in rows})), error,
                     held_out)


def estimated_energy(law: Mapping[str, float], estimate: Mapping[str, Any],
                     profile: Mapping[str, Any] | None) -> dict[str, Any]:
    """Each layer's estimated µJ (and their sum, the inference) under ``law``."""
    features = layer_features(estimate, profile)
    layers = {index: sum(c * f.get(n, 0.0) for n, c in law.items())
              for index, f in features.items()}
    return {"layers": {str(i): round(v, 4) for i, v in sorted(layers.items())},
            "inference_uj": round(sum(layers.values()), 4)}

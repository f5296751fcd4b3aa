"""``matrix.json``: the record of a matrix run, and the typed view every reader of it uses.

The CSV, the JUnit file, the HTML report and ``hpx compare`` of two matrix folders all read the
same :class:`MatrixView`, loaded from this file; bundle paths in it are relative to the matrix
folder, so the folder can be moved or archived whole.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.atomic import write_atomic
from hpx_core.errors import ResultsError
from hpx_core.matrix.cell import CellResult
from hpx_core.matrix.numbers import CellNumbers
from hpx_core.matrix.plan import MatrixPlan

MATRIX_FILE = "matrix.json"
SCHEMA = 1


@attrs.frozen
class CellRow:
    """One cell as the matrix records it."""

    id: str
    model: str
    configuration: str
    coordinates: Mapping[str, str | None]
    status: str
    fingerprint: str
    bundle: str | None = None  # relative to the matrix folder
    cause: str | None = None
    note: str | None = None
    numbers: CellNumbers | None = None
    resumed: bool = False
    seconds: float = 0.0
    place: str | None = None  # the board farm place that ran it (None: the matrix's machine)
    validation: str | None = None  # its validation bundle, relative to the matrix folder


@attrs.frozen
class PrunedRow:
    """A cell left out before anything ran, and why."""

    id: str
    coordinates: Mapping[str, str | None]
    reason: str


@attrs.frozen
class MatrixView:
    """A matrix folder as data."""

    folder: Path
    name: str
    labels: Mapping[str, Any]
    spec: str
    created_utc: str
    interrupted: bool
    cells: tuple[CellRow, ...]
    pruned: tuple[PrunedRow, ...]

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.model for c in self.cells))

    @property
    def configurations(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.configuration for c in self.cells))

    def cell(self, model: str, configuration: str) -> CellRow | None:
        return next((c for c in self.cells
                     if c.model == model and c.configuration == configuration), None)

    @property
    def places(self) -> tuple[str, ...]:
        """The board farm places that ran cells, in the order cells name them."""
        return tuple(dict.fromkeys(c.place for c in self.cells if c.place))

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for cell in self.cells:
            counts[cell.status] = counts.get(cell.status, 0) + 1
        return counts


def cell_row(result: CellResult, folder: Path) -> CellRow:
    cell = result.planned.cell
    bundle = result.bundle.relative_to(folder).as_posix() if result.bundle else None
    validation = (result.validation.relative_to(folder).as_posix() if result.validation
                  else None)
    return CellRow(cell.id, cell.model.name, cell.configuration, cell.coordinates(),
                   result.status, result.planned.fingerprint, bundle, result.cause, result.note,
                   result.numbers, result.resumed, result.seconds, result.place, validation)


def write_matrix_json(plan: MatrixPlan, results: Sequence[CellResult], *,
                      interrupted: bool) -> Path:
    """Write ``matrix.json`` into the plan's folder (atomically)."""
    data = {
        "schema": SCHEMA, "name": plan.name, "labels": dict(plan.labels),
        "spec": str(plan.spec_file),
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "interrupted": interrupted,
        "cells": [attrs.asdict(cell_row(r, plan.folder)) for r in results],
        "pruned": [{"id": p.cell.id, "coordinates": p.cell.coordinates(), "reason": p.reason}
                   for p in plan.pruned],
    }
    text = json.dumps(data, indent=2, default=str) + "\n"
    return write_atomic(plan.folder / MATRIX_FILE, text)


def is_matrix_folder(path: Path) -> bool:
    return (path / MATRIX_FILE).is_file()


def load_matrix(folder: Path) -> MatrixView:
    """The matrix recorded in ``folder``; ResultsError when there is none or it is damaged."""
    file = folder / MATRIX_FILE
    try:
        data = json.loads(file.read_text("utf-8"))
        if data.get("schema") != SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r}")
        return MatrixView(
            folder=folder, name=str(data["name"]), labels=dict(data.get("labels") or {}),
            spec=str(data.get("spec", "")), created_utc=str(data.get("created_utc", "")),
            interrupted=bool(data.get("interrupted")),
            cells=tuple(_row(c) for c in data["cells"]),
            pruned=tuple(PrunedRow(str(p["id"]), dict(p["coordinates"]), str(p["reason"]))
                         for p in data.get("pruned", [])),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ResultsError(f"{folder} holds no readable matrix ({MATRIX_FILE}: {error})",
                           "point at a folder `hpx matrix` wrote") from None


def _row(data: Mapping[str, Any]) -> CellRow:
    numbers = data.get("numbers")
    return CellRow(
        id=str(data["id"]), model=str(data["model"]), configuration=str(data["configuration"]),
        coordinates=dict(data["coordinates"]), status=str(data["status"]),
        fingerprint=str(data["fingerprint"]), bundle=data.get("bundle"),
        cause=data.get("cause"), note=data.get("note"),
        numbers=CellNumbers(**numbers) if isinstance(numbers, dict) else None,
        resumed=bool(data.get("resumed")), seconds=float(data.get("seconds") or 0.0),
        place=data.get("place"), validation=data.get("validation"),
    )

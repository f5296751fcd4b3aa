"""``hpx matrix``: models x engines x backends x boards x toolchains in one command.

A matrix file (:mod:`.spec`) expands into cells (:mod:`.cells`); the plan prunes the cells a
license or a board forbids and fingerprints the rest (:mod:`.plan`); the scheduler runs them
through the one pipeline in parallel, sharing build slots, emulators and boards
(:mod:`.scheduler`, :mod:`.resources`); each cell leaves its bundle and ``cell.json``
(:mod:`.cell`), and the matrix folder gets ``matrix.json`` (:mod:`.record`), a CSV, JUnit
(:mod:`.outputs`) and an HTML report. Two matrix folders compare cell by cell (:mod:`.compare`).
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.matrix.cell import CellResult
from hpx_core.matrix.cells import Cell
from hpx_core.matrix.numbers import CellNumbers
from hpx_core.matrix.plan import MatrixPlan, PlannedCell, PrunedCell, plan_matrix
from hpx_core.matrix.record import MatrixView, is_matrix_folder, load_matrix
from hpx_core.matrix.run import (
    MatrixFailedError,
    MatrixInterruptedError,
    MatrixResult,
    run_matrix,
)
from hpx_core.matrix.scheduler import Progress, WorkerState
from hpx_core.matrix.spec import LoadedSpec, MatrixSpec, load_spec

__all__ = [
    "Cell",
    "CellNumbers",
    "CellResult",
    "LoadedSpec",
    "MatrixFailedError",
    "MatrixInterruptedError",
    "MatrixPlan",
    "MatrixResult",
    "MatrixSpec",
    "MatrixView",
    "PlannedCell",
    "Progress",
    "PrunedCell",
    "WorkerState",
    "default_folder",
    "is_matrix_folder",
    "load_matrix",
    "load_spec",
    "plan_matrix",
    "run_matrix",
]


def default_folder(loaded: LoadedSpec) -> Path:
    """``hpx-matrix/<name>`` in the working directory."""
    return Path("hpx-matrix") / (loaded.spec.name or loaded.file.stem)

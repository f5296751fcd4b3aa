"""One cell: run it through the pipeline, record what happened, or find it done already.

A cell's folder holds its bundle (a result bundle, or a build bundle for a build-only cell or a
silicon board without a probe) and ``cell.json``, written last: the cell's status, its cause
when it failed, the board farm place that ran it (if one did), and the fingerprint of its
inputs. ``--resume`` trusts a cell only when its
``cell.json`` says complete (or built), the fingerprint is the one planned now and its bundle
still verifies.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core import pipeline
from hpx_core.atomic import write_atomic
from hpx_core.errors import HpxError
from hpx_core.log import get_logger
from hpx_core.matrix.numbers import CellNumbers, read_numbers, with_validation
from hpx_core.matrix.plan import PlannedCell
from hpx_core.pipeline import ProfileOutcome, StageUnavailableError
from hpx_core.pipeline.built import write_build
from hpx_core.plugins import Registry
from hpx_core.results import verify_bundle
from hpx_core.results.build_bundle import is_build_bundle
from hpx_core.results.outputs import OutputVerdict
from hpx_core.validation.bundle import is_validation_bundle

log = get_logger()
CELL_FILE = "cell.json"
PAGE_FILE = "report.html"
BUILD_ONLY = "kernel verification"
CellStatus = Literal["complete", "built", "failed", "interrupted", "not run"]
DONE: tuple[CellStatus, ...] = ("complete", "built")


class CellInterruptedError(HpxError):
    """The matrix was stopped while this cell waited to go on."""

    exit_code = 130


@attrs.frozen
class CellResult:
    """What became of one cell. ``bundle`` is its folder's bundle (failed runs have one too);
    ``libraries`` names the engine libraries it linked and whether it built them."""

    planned: PlannedCell
    status: CellStatus
    bundle: Path | None = None
    cause: str | None = None
    note: str | None = None
    numbers: CellNumbers | None = None
    libraries: tuple[Mapping[str, Any], ...] = ()
    seconds: float = 0.0
    resumed: bool = False
    place: str | None = None  # the board farm place that ran it (None: this machine)
    validation: Path | None = None  # hpx validate's bundle of the cell's data set, if any

    @property
    def id(self) -> str:
        return self.planned.cell.id


Stopping = Callable[[], bool]


def _here() -> str | None:
    return None


def run_cell(planned: PlannedCell, registry: Registry, on_stage: Callable[[str], None],
             stopping: Stopping, place: Callable[[], str | None] = _here) -> CellResult:
    """Run the cell (its run on the farm place ``place()`` names when the run stage starts,
    if any); never raises: any failure is the result's cause."""
    folder = planned.folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.monotonic()
    try:
        result = _profile(planned, registry, on_stage, place)
    except StageUnavailableError as stopped:
        result = _stopped_after_build(planned, registry, stopped)
    except CellInterruptedError as error:
        result = CellResult(planned, "interrupted", cause=error.message)
    except HpxError as error:
        cause = f"{error.message} ({error.hint})" if error.hint else error.message
        status: CellStatus = "interrupted" if stopping() else "failed"
        result = CellResult(planned, status, _bundle_in(folder), cause)
    except Exception as error:  # a defect must not take the other cells down
        (folder / "error.log").write_text(traceback.format_exc(), encoding="utf-8")
        result = CellResult(planned, "failed", None,
                            f"internal error {type(error).__name__}: {error} (see error.log)")
    numbers = read_numbers(result.bundle) if result.bundle else None
    result = attrs.evolve(result, seconds=round(time.monotonic() - started, 3),
                          numbers=with_validation(numbers, result.validation), place=place())
    write_cell_page(result)
    write_cell_file(result)
    return result


_DRAWING = threading.Lock()
"""Matplotlib draws one figure at a time: its text and font caches are shared by threads."""


def write_bundle_page(bundle: Path, page: Path) -> Path:
    """``page``, the report of the result bundle ``bundle``, drawn one page at a time."""
    from hpx_core.compare import load_view  # matplotlib and the report, only when a cell ends
    from hpx_core.report import bundle_report, write_report

    with _DRAWING:
        return write_report(page, bundle_report(load_view(bundle)))


def write_cell_page(result: CellResult) -> None:
    """The cell's ``report.html`` from its result bundle, written as the cell ends, in its
    worker while the other cells build and run: drawn at the matrix's end, the pages of the
    emulated MLPerf Tiny example took 2 s on one core while the other idled. A bundle the report
    cannot read leaves no page: the matrix report shows the cell without a link to it."""
    if result.bundle is None or is_build_bundle(result.bundle):
        return
    try:
        write_bundle_page(result.bundle, result.planned.folder / PAGE_FILE)
    except HpxError:
        return
    except Exception as error:  # a defect in a page must not lose the cell it reports
        log.warning("no report page", cell=result.id, error=f"{type(error).__name__}: {error}")


def _profile(planned: PlannedCell, registry: Registry, on_stage: Callable[[str], None],
             place: Callable[[], str | None]) -> CellResult:
    build_only = planned.cell.build_only
    outcome = pipeline.profile(None, None, planned.overrides, registry, on_stage=on_stage,
                               until=BUILD_ONLY if build_only else None, place=place)
    libraries = _libraries(outcome)
    if build_only:
        bundle = write_build(outcome, planned.folder, registry, note="build only")
        return CellResult(planned, "built", bundle, note="build only", libraries=libraries)
    outputs = outcome.record.outputs if outcome.record else None
    if isinstance(outputs, OutputVerdict) and not outputs.passed:  # counts of a wrong answer
        return CellResult(planned, "failed", outcome.bundle, outputs.sentence(),
                          libraries=libraries)
    return CellResult(planned, "complete", outcome.bundle, libraries=libraries,
                      validation=_validate(planned, registry, on_stage, outcome))


def _validate(planned: PlannedCell, registry: Registry, on_stage: Callable[[str], None],
              outcome: ProfileOutcome) -> Path | None:
    """With ``validation.data`` in the matrix's profile section, the cell's data set through
    its validation firmware (hpx validate), its bundle in the cell's folder; None without."""
    if outcome.config.validation.data is None or not outcome.board.emulated:
        return None
    from hpx_core.validation.bundle import write_validation
    from hpx_core.validation.run import prepare, validate

    prepared = prepare(None, planned.overrides, registry, on_stage=on_stage)
    on_stage(pipeline.STAGE_NAMES[-1])  # the windows hold an emulator slot, as a run does
    return write_validation(validate(prepared, registry), planned.folder, registry)


def _stopped_after_build(planned: PlannedCell, registry: Registry,
                         stopped: StageUnavailableError) -> CellResult:
    outcome = stopped.outcome
    if outcome is None or BUILD_ONLY not in outcome.stages:
        return CellResult(planned, "failed", None, stopped.message)
    bundle = write_build(outcome, planned.folder, registry, note=stopped.message)
    return CellResult(planned, "built", bundle, note=stopped.message,
                      libraries=_libraries(outcome))


def _libraries(outcome: ProfileOutcome) -> tuple[Mapping[str, Any], ...]:
    contribution = outcome.contribution
    return tuple(attrs.asdict(lib) for lib in contribution.libraries) if contribution else ()


def _bundle_in(folder: Path) -> Path | None:
    """The bundle a failed run left in its folder, if any."""
    found = sorted(p for p in folder.iterdir()
                   if (p / "manifest.json").is_file() and not is_validation_bundle(p))
    return found[-1] if found else None


def write_cell_file(result: CellResult) -> Path:
    """``cell.json``: written last, atomically; what ``--resume`` and readers trust."""
    planned = result.planned
    data = {
        "schema": 1, "id": planned.cell.id, "coordinates": planned.cell.coordinates(),
        "fingerprint": planned.fingerprint, "status": result.status,
        "bundle": result.bundle.name if result.bundle else None, "cause": result.cause,
        "note": result.note, "seconds": result.seconds, "libraries": list(result.libraries),
        "place": result.place,
        "validation": result.validation.name if result.validation else None,
    }
    return write_atomic(planned.folder / CELL_FILE, json.dumps(data, indent=2) + "\n")


def finished_before(planned: PlannedCell) -> CellResult | None:
    """The cell's earlier result, if it is done, has these inputs, and its bundle verifies."""
    try:
        data = json.loads((planned.folder / CELL_FILE).read_text("utf-8"))
        status, bundle = data["status"], planned.folder / str(data["bundle"])
        if status not in DONE or data["fingerprint"] != planned.fingerprint:
            return None
        verify_bundle(bundle)
    except (OSError, ValueError, KeyError, TypeError, HpxError):
        return None
    validation = planned.folder / str(data["validation"]) if data.get("validation") else None
    return CellResult(planned, status, bundle, data.get("cause"), data.get("note"),
                      with_validation(read_numbers(bundle), validation),
                      tuple(data.get("libraries") or ()), float(data.get("seconds") or 0.0),
                      resumed=True, place=data.get("place"), validation=validation)

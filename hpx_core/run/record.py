"""Run a built firmware through a runner, judge its stream, and always leave a result bundle.

The order of judgement: a timeout, then the stream (lost, corrupted, truncated), then the
board it claims to come from, then a fault or an error the firmware reported, then an emulator
that failed on its own. Any of these leaves a ``failed`` bundle (with whatever was captured)
before the error is raised. Every runner goes through here.

The pieces are separate so that a caller composes them and keeps the plugins to itself:
:class:`Recorder` writes the bundle whatever happens, :func:`judge` returns the checked
capture (an error the engine's glue reported comes back as :class:`FirmwareReportedError`, for
the caller to put in the engine's words), and :func:`run_and_record` is the whole sequence for
a run that needs no engine (the selftest, ``hpx run``).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import attrs

from hpx_core.boards import Board
from hpx_core.errors import CaptureError, HpxError, RunError
from hpx_core.results import BundleInputs, Measurement, measure, merge_event_passes, write_bundle
from hpx_core.results.outputs import NO_ENGINE, Outputs, OutputsUnchecked, OutputVerdict
from hpx_core.run.fault import describe_fault
from hpx_core.run.pass_result import PassResult
from hpx_core.run.runner import Execution, RunInterruptedError, Runner, StreamStoppedError
from hpx_core.wire import Capture, parse_capture

T = TypeVar("T")

# The silicon counter backends' boot-check codes (counters/hpx_counter_check.h).
COUNTER_ERRORS = {
    10: "the counter is not implemented",
    11: "the counter's enable bit did not stick",
    12: "the counter did not advance across the check loop",
    13: "the counter advanced less than the check loop's instructions",
    14: "the PMU has fewer event counters than this pass asks for",
    15: "an event type written to the PMU did not read back (the PMU does not count it)",
}


@attrs.frozen
class ResultParts:
    """What a run adds to its bundle from the capture: the engine's ``extra`` facts, the files
    it sent (e.g. an ETDump), its outputs against the host's (outside the tolerance, the run
    is invalid; None: nothing compared them, which the bundle says) and what the uncounted
    passes found, by pass name."""

    extra: Mapping[str, Any] = attrs.field(factory=dict)
    files: Mapping[str, bytes] = attrs.field(factory=dict)
    outputs: Outputs | None = None
    passes: Mapping[str, PassResult[Any]] = attrs.field(factory=dict)


@attrs.frozen
class RunRecord:
    """A successful run: what the runner produced, the checked capture, counts and bundle."""

    execution: Execution
    capture: Capture
    measurement: Measurement
    bundle: Path
    extra: Mapping[str, Any] = attrs.field(factory=dict)  # the bundle's ``extra`` section
    outputs: Outputs | None = None  # against the host reference, or why they were not
    passes: Mapping[str, PassResult[Any]] = attrs.field(factory=dict)  # by pass name

    def result(self, name: str, kind: type[T]) -> T | None:
        """What the pass called ``name`` found, if it ran and found a ``kind``."""
        found = self.passes.get(name)
        return found.value if found is not None and isinstance(found.value, kind) else None


def provenance(identity: Mapping[str, Any] | None = None,
               extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Who made this bundle, when, where, with which runner."""
    try:
        version = metadata.version("hpx-core")
    except metadata.PackageNotFoundError:
        version = "unknown"
    data: dict[str, Any] = {
        "hpx_core": version,
        "python": platform.python_version(),
        "host": f"{platform.system()} {platform.machine()}",
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return data | dict(identity or {}) | dict(extra or {})


HOSTILE_HINT = ("hpx gives firmware no host access; run only firmware you trust, and rebuild "
                "it from its sources with hpx")


class FirmwareReportedError(RunError):
    """The firmware sent an ERROR record with a code of the engine's glue (``code`` during
    ``stage``); the engine's plugin may word it (``hpx_explain_error``)."""

    def __init__(self, code: int, stage: str, capture: Capture) -> None:
        super().__init__(f"the firmware reported error {code} in stage {stage!r}",
                         "see the engine's error codes")
        self.code, self.stage, self.capture = code, stage, capture


def _stream_checks(board: Board, elf: Path, capture: Capture) -> None:
    claimed = capture.start.text("board")
    if claimed != board.name:
        raise CaptureError(
            f"the stream comes from firmware built for {claimed!r}, not {board.name!r}",
            "rebuild for this board and run again",
        )
    if capture.fault is not None:
        fault = describe_fault(capture.fault, elf)
        raise RunError(fault.message(), HOSTILE_HINT if fault.semihosting else
                       "the firmware crashed; the fault record is in the failed bundle")
    for err in capture.of("ERROR"):
        code, stage = err.number("code"), err.text("stage")
        if stage == "counter_init" and code in COUNTER_ERRORS:
            raise RunError(
                f"the counter check at boot failed on {board.name}: {COUNTER_ERRORS[code]}",
                "hpx does not report counts it cannot trust; check the board and its debug setup",
            )
        raise FirmwareReportedError(code, stage, capture)


def judge(board: Board, elf: Path, run: Execution, timeout: float) -> Capture:
    """The checked capture, or the HpxError that explains why the run failed."""
    if run.timed_out:
        raise RunError(
            f"the firmware did not finish within {timeout:g} s on {board.name}",
            "it may hang; the partial capture is in the failed bundle",
        )
    try:
        capture = parse_capture(run.stream)
    except CaptureError as error:
        if run.exit_code:
            raise _emulator_failed(run, f"and an unusable stream ({error.message})") from error
        raise
    _stream_checks(board, elf, capture)
    if run.exit_code:
        raise _emulator_failed(run, "after the stream's END")
    return capture


def _emulator_failed(run: Execution, after: str) -> RunError:
    """The emulator itself failed (a lockup, a signal): its status and first words."""
    said = str(run.details.get("stderr") or "").strip().splitlines()
    words = f": {said[0][:200]}" if said else ""
    return RunError(f"the emulator exited with status {run.exit_code} {after}{words}",
                    "check the board setup with `hpx selftest`")


def measured(capture: Capture, run: Execution, board: Board,
             event_names: Mapping[int, str] | None = None, merge_with: Sequence[Measurement] = (),
             planned_events: Sequence[str] = ()) -> Measurement:
    """The run's counts, with the runner's issues and the other PMU passes merged in."""
    measurement = _with_run_issues(measure(capture, board, event_names), run.issues)
    if merge_with or planned_events:
        measurement = merge_event_passes(measurement, merge_with, planned_events)
    return measurement


def _with_run_issues(measurement: Measurement, issues: Sequence[str]) -> Measurement:
    """The runner's issues join the stream's; a valid measurement with any is degraded."""
    if not issues:
        return measurement
    validity = "degraded" if measurement.validity == "valid" else measurement.validity
    return attrs.evolve(measurement, issues=(*measurement.issues, *issues), validity=validity)


@attrs.frozen
class Recorder:
    """Writes one run's bundle under ``results_dir``; ``base`` is what any bundle of the run
    records (the run's facts, as far as they are known), so a failure still leaves one."""

    results_dir: Path
    base: BundleInputs

    def execute(self, runner: Runner, elf: Path) -> tuple[Execution, Recorder]:
        """Run ``elf``; the recorder that knows the stream. A stream that stopped early (a
        timeout on a board, a lost link, Ctrl-C) leaves a failed bundle with what came."""
        try:
            run = runner.execute(elf)
        except KeyboardInterrupt:
            run = None
            error = StreamStoppedError("the run was interrupted", "nothing was captured", b"",
                                       interrupted=True)
        except StreamStoppedError as stopped:
            run, error = None, stopped
        if run is None:
            stopped_run = {"runner": runner.board.runner, "stopped": error.message}
            bundle = write_bundle(self.results_dir, attrs.evolve(
                self.base, error=error, capture=error.partial, run=stopped_run))
            failure = RunInterruptedError if error.interrupted else RunError
            raise failure(error.message, f"{error.hint}; failed bundle: {bundle}") from error
        identity = provenance(run.identity, self.base.provenance)
        return run, attrs.evolve(self, base=attrs.evolve(
            self.base, capture=run.stream, run=dict(run.details), provenance=identity))

    def fail(self, error: HpxError) -> NoReturn:
        """Write the failed bundle, then raise ``error`` with a hint that names it."""
        bundle = write_bundle(self.results_dir, attrs.evolve(self.base, error=error))
        kind = RunError if isinstance(error, RunError) else CaptureError
        raise kind(error.message, f"{error.hint}; failed bundle: {bundle}") from error

    def complete(self, run: Execution, capture: Capture, measurement: Measurement,
                 parts: ResultParts | None = None) -> RunRecord:
        """Write the complete bundle (outputs beyond the tolerance make it invalid)."""
        parts = parts or ResultParts()
        if parts.outputs is None:  # said in the bundle: validity never vouches for an answer
            parts = attrs.evolve(parts, outputs=OutputsUnchecked(NO_ENGINE))
        measurement = judge_outputs(measurement, parts.outputs)
        said = tuple(issue for p in parts.passes.values() for issue in p.issues)
        if said:
            measurement = attrs.evolve(measurement, issues=(*measurement.issues, *said))
        files = {**self.base.files, **parts.files}  # what the run had before, then its own
        for found in parts.passes.values():
            files |= found.files
        inputs = attrs.evolve(
            self.base, status="complete", measurement=measurement,
            extra={**(self.base.extra or {}), **parts.extra}, files=files,
            sections={p.section: p.document for p in parts.passes.values()},
            outputs=parts.outputs)
        bundle = write_bundle(self.results_dir, inputs)
        return RunRecord(run, capture, measurement, bundle, dict(inputs.extra or {}),
                         parts.outputs, dict(parts.passes))


def run_and_record(
    runner: Runner,
    elf: Path,
    results_dir: Path,
    *,
    engine: str,
    backend: str | None = None,
    engine_libraries: tuple[str, ...] = (),
    toolchain: str | None = None,
    model_sha256: str | None = None,
    engine_code: str | None = None,
    config: Mapping[str, Any] | None = None,
    build: Mapping[str, Any] | None = None,
    provenance_extra: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    event_names: Mapping[int, str] | None = None,
    merge_with: Sequence[Measurement] = (),
    planned_events: Sequence[str] = (),
    logs: Mapping[str, bytes] | None = None,
) -> RunRecord:
    """Run ``elf``, write a bundle under ``results_dir`` and return the record: the whole
    sequence for a run without an engine's words (the selftest, ``hpx run``). ``merge_with``
    holds the measurements of other PMU event passes, merged by layer identity; ``logs`` (file
    name -> text) are kept in the bundle. On any failure a ``failed`` bundle is written first
    and the raised error's hint names it."""
    board = runner.board
    recorder = Recorder(results_dir, BundleInputs(
        status="failed", board=board.name, engine=engine, backend=backend,
        engine_libraries=engine_libraries, counter_units=board.counter_units(),
        model_sha256=model_sha256, toolchain=toolchain, config=config, build=build,
        engine_code=engine_code,
        provenance=provenance(None, provenance_extra), extra=extra, logs=logs,
    ))
    run, recorder = recorder.execute(runner, elf)
    try:
        capture = judge(board, elf, run, runner.timeout)
        measurement = measured(capture, run, board, event_names, merge_with, planned_events)
    except HpxError as error:
        recorder.fail(error)
    return recorder.complete(run, capture, measurement)


def judge_outputs(measurement: Measurement, outputs: Outputs | None) -> Measurement:
    """A run whose outputs differ from the host's beyond the tolerance is invalid, whatever
    its counts: they are the counts of a wrong answer. Outputs nobody compared leave the
    validity to the counts; the bundle's ``outputs`` says they were not checked."""
    if not isinstance(outputs, OutputVerdict) or outputs.passed:
        return measurement
    return attrs.evolve(measurement, validity="invalid",
                        issues=(*measurement.issues, outputs.sentence()))

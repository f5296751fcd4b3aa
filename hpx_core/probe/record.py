"""A run on a real board, judged and kept: the same result bundle as an emulated run.

The order of judgement follows the emulated runner: the stream (lost, corrupted, truncated),
then the board it claims to come from, then a fault or an error the firmware reported. Every
failure writes a ``failed`` bundle with whatever was captured before the error is raised.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.errors import CaptureError, HpxError, RunError
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeOutput, ProbeSettings, StreamStoppedError, run_on_probe
from hpx_core.results import (
    BundleInputs,
    Measurement,
    measure,
    merge_event_passes,
    write_bundle,
)
from hpx_core.run.fault import describe_fault
from hpx_core.run.session import provenance
from hpx_core.wire import Capture, parse_capture

# The silicon counter backends' boot-check codes (counters/hpx_counter_check.h).
COUNTER_ERRORS = {
    10: "the counter is not implemented",
    11: "the counter's enable bit did not stick",
    12: "the counter did not advance across the check loop",
    13: "the counter advanced less than the check loop's instructions",
    14: "the PMU has fewer event counters than this pass asks for",
}


@attrs.frozen
class ProbeRecord:
    """A successful run on a board: output, checked capture, counts and the bundle."""

    output: ProbeOutput
    capture: Capture
    measurement: Measurement
    bundle: Path


def judge(board: Board, elf: Path, stream: bytes) -> Capture:
    """The checked capture, or the HpxError that explains why the run failed."""
    capture = parse_capture(stream)
    claimed = capture.start.text("board")
    if claimed != board.name:
        raise CaptureError(
            f"the stream comes from firmware built for {claimed!r}, not {board.name!r}",
            "rebuild for this board and flash again",
        )
    if capture.fault is not None:
        raise RunError(
            describe_fault(capture.fault, elf).message(),
            "the firmware crashed; the fault record is in the failed bundle",
        )
    for err in capture.of("ERROR"):
        code, stage = err.number("code"), err.text("stage")
        if stage == "counter_init" and code in COUNTER_ERRORS:
            raise RunError(
                f"the counter check at boot failed on {board.name}: {COUNTER_ERRORS[code]}",
                "hpx does not report counts it cannot trust; check the board and its debug setup",
            )
        raise RunError(
            f"the firmware reported error {code} in stage {stage!r}",
            "see the engine's error codes",
        )
    return capture


def _run_json(output: ProbeOutput | None, error: HpxError | None) -> dict[str, Any]:
    data: dict[str, Any] = {"runner": "probe"}
    if output is not None:
        data |= {
            "probe": attrs.asdict(output.probe),
            "pyocd_target": output.target,
            "seconds": round(output.seconds, 3),
            "rtt_control_block": f"{output.rtt_address:#010x}",
        }
    if error is not None:
        data["stopped"] = error.message
    return data


def run_and_record_on_probe(
    board: Board,
    elf: Path,
    results_dir: Path,
    *,
    engine: str,
    probe: str | None = None,
    settings: ProbeSettings | None = None,
    api: PyocdApi | None = None,
    toolchain: str | None = None,
    model_sha256: str | None = None,
    config: Mapping[str, Any] | None = None,
    build: Mapping[str, Any] | None = None,
    provenance_extra: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    extra_from: Callable[[Capture], Mapping[str, Any]] | None = None,
    event_names: Mapping[int, str] | None = None,
    merge_with: Sequence[Measurement] = (),
    planned_events: Sequence[str] = (),
) -> ProbeRecord:
    """Flash, capture, judge and bundle; a failed bundle first on any failure after flashing.

    ``extra`` and ``extra_from`` add engine facts to the bundle as on the emulated boards
    (kernel checks, the output compared with the host reference). ``merge_with`` holds the
    measurements of the other PMU event passes, merged into this one by layer identity.
    """
    base = BundleInputs(
        status="failed",
        board=board.name,
        engine=engine,
        counter_units=board.counter_units(),
        model_sha256=model_sha256,
        toolchain=toolchain,
        config=config,
        build=build,
        provenance=provenance(None, {"runner": "probe", **(provenance_extra or {})}),
        extra=extra,
    )
    try:
        output = run_on_probe(board, elf, probe=probe, settings=settings, api=api)
    except StreamStoppedError as error:
        bundle = write_bundle(
            results_dir,
            attrs.evolve(base, error=error, capture=error.partial, run=_run_json(None, error)),
        )
        raise RunError(error.message, f"{error.hint}; failed bundle: {bundle}") from error
    try:
        capture = judge(board, elf, output.stream)
        measurement = merge_event_passes(
            measure(capture, board, event_names), merge_with, planned_events
        )
        if extra_from is not None:
            base = attrs.evolve(base, extra={**(extra or {}), **extra_from(capture)})
    except HpxError as error:
        failed = attrs.evolve(
            base, error=error, capture=output.stream, run=_run_json(output, error)
        )
        bundle = write_bundle(results_dir, failed)
        kind = RunError if isinstance(error, RunError) else CaptureError
        raise kind(error.message, f"{error.hint}; failed bundle: {bundle}") from error
    done = attrs.evolve(
        base,
        status="complete",
        capture=output.stream,
        measurement=measurement,
        run=_run_json(output, None),
    )
    return ProbeRecord(output, capture, measurement, write_bundle(results_dir, done))

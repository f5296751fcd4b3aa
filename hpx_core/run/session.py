"""Run a built firmware, check its stream, and always leave a result bundle.

The order of judgement: a timeout, then the stream (lost/corrupted/truncated), then a fault
or an error the firmware reported, then an exit status that disagrees with the stream. Any of
these writes a ``failed`` bundle (raw capture included) before the error is raised.
"""

from __future__ import annotations

import platform
import subprocess
import time
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.errors import CaptureError, HpxError, RunError
from hpx_core.results import BundleInputs, Measurement, measure, write_bundle
from hpx_core.run.fault import describe_fault
from hpx_core.run.qemu import RunOutput, run_on_qemu
from hpx_core.wire import Capture, parse_capture
from hpx_core.wire.protocol import EXIT_STATUS


@attrs.frozen
class RunRecord:
    """A successful run: the raw output, the checked capture, the counts and the bundle."""

    output: RunOutput
    capture: Capture
    measurement: Measurement
    bundle: Path


def _qemu_version(argv0: str) -> str:
    try:
        done = subprocess.run(
            [argv0, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return "unknown"
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else "unknown"


def provenance(output: RunOutput | None, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Who made this bundle, when, where and with which emulator."""
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
    if output is not None:
        data["runner"] = {"argv": list(output.argv), "version": _qemu_version(output.argv[0])}
    data.update(extra or {})
    return data


def _run_json(output: RunOutput) -> dict[str, Any]:
    return {
        "argv": list(output.argv),
        "exit_code": output.exit_code,
        "seconds": round(output.seconds, 3),
        "timed_out": output.timed_out,
        "stderr": output.stderr.decode("utf-8", "replace")[-4000:],
    }


def _judge(board: Board, elf: Path, output: RunOutput, timeout: float) -> Capture:
    if output.timed_out:
        raise RunError(
            f"the firmware did not finish within {timeout:g} s on {board.name}",
            "it may hang; the partial capture is in the failed bundle",
        )
    try:
        capture = parse_capture(output.stream)
    except CaptureError as error:
        if output.exit_code not in EXIT_STATUS:
            raise RunError(
                f"the emulator exited with status {output.exit_code} and an unusable stream "
                f"({error.message})",
                "check the board setup with `hpx selftest`",
            ) from error
        raise
    fault = capture.fault
    if fault is not None:
        raise RunError(
            describe_fault(fault, elf).message(),
            "the firmware crashed; the fault record is in the failed bundle",
        )
    for err in capture.of("ERROR"):
        raise RunError(
            f"the firmware reported error {err.number('code')} in stage {err.text('stage')!r}",
            "see the engine's error codes",
        )
    if output.exit_code != capture.status:
        raise RunError(
            f"exit status {output.exit_code} disagrees with the stream's END status "
            f"{capture.status}",
            "the firmware exited by an unexpected path",
        )
    return capture


def run_and_record(
    board: Board,
    elf: Path,
    results_dir: Path,
    *,
    engine: str,
    timeout: float = 60.0,
    toolchain: str | None = None,
    model_sha256: str | None = None,
    config: Mapping[str, Any] | None = None,
    build: Mapping[str, Any] | None = None,
    provenance_extra: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    extra_from: Callable[[Capture], Mapping[str, Any]] | None = None,
) -> RunRecord:
    """Run ``elf`` on ``board``, write a bundle under ``results_dir`` and return the record.

    ``extra_from`` derives engine facts (e.g. outputs checked against a host reference) from
    the checked capture. On any failure a ``failed`` bundle is written first; the raised
    HpxError's hint names it.
    """
    output = run_on_qemu(board, elf, timeout=timeout)
    base = BundleInputs(
        status="failed",
        board=board.name,
        engine=engine,
        counter_units=board.counter_units(),
        capture=output.stream,
        model_sha256=model_sha256,
        toolchain=toolchain,
        config=config,
        build=build,
        run=_run_json(output),
        provenance=provenance(output, provenance_extra),
        extra=extra,
    )
    try:
        capture = _judge(board, elf, output, timeout)
        measurement = measure(capture, board)
        if extra_from is not None:
            base = attrs.evolve(base, extra={**(extra or {}), **extra_from(capture)})
    except HpxError as error:
        bundle = write_bundle(results_dir, attrs.evolve(base, error=error))
        kind = RunError if isinstance(error, RunError) else CaptureError
        raise kind(error.message, f"{error.hint}; failed bundle: {bundle}") from error
    bundle = write_bundle(
        results_dir, attrs.evolve(base, status="complete", measurement=measurement)
    )
    return RunRecord(output, capture, measurement, bundle)

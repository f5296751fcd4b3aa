"""``hpx validate``: a data set through the built firmware, compared with the host, sample by
sample.

The stages of a profile check the config and the model, then build the firmware once with the
harness's validation pass (:mod:`hpx_core.pipeline.validation_pass`); before the build the data
set is read and checked against the model's inputs, so a bad file costs no compile. Then each
window of samples (as many as the firmware's window holds) runs once on the emulated board
(:mod:`.device`), the same samples go through the engine's host reference
(``hpx_host_outputs``), or are read from the data set's expected outputs when it carries them
(an exporter's host results, for engines that cannot run the model on the host), and every
output is scored (:mod:`.metrics`). A window's outputs are
kept in the run's work folder as it ends, so a run stopped halfway resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TextIO

import attrs

from hpx_core.atomic import write_atomic
from hpx_core.config.validate import Overrides
from hpx_core.errors import ConfigError, PluginError
from hpx_core.models.info import ModelInfo
from hpx_core.pipeline import CHECKED_STAGES, profile
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import ProfileOutcome, need
from hpx_core.plugins import Registry
from hpx_core.validation.data import DataSet, load_data
from hpx_core.validation.device import (
    VOUT_CHUNK,
    Window,
    WindowRun,
    find_window,
    run_window,
)
from hpx_core.validation.metrics import OutputScore, scores
from hpx_core.wire.capture import Capture

BUILD_ONLY = "kernel verification"
Progress = Callable[[int, int, float | None], None]
Outputs = list[tuple[bytes, ...]]  # per sample, every output's bytes


@attrs.frozen
class Validation:
    """What a validation found: the scores per output, each sample's line, the data set and
    the build it ran on; ``resumed`` samples came from a stopped run's kept windows."""

    outcome: ProfileOutcome
    data: DataSet
    scores: tuple[OutputScore, ...]
    samples_file: Path
    seconds: float
    device_seconds: float
    resumed: int
    first_capture: Capture | None  # the first window run now (its counted passes)


@attrs.frozen
class Prepared:
    """A validation ready to run: the built firmware, its window and the checked data set."""

    outcome: ProfileOutcome
    data: DataSet
    window: Window
    started: float


def prepare(config_file: Path | None, overrides: Overrides, registry: Registry, *,
            on_stage: Callable[[str], None] | None = None) -> Prepared:
    """Check the config, the model and the data set, then build the firmware once."""
    started = time.perf_counter()
    checked = profile(None, config_file, overrides, registry, until=CHECKED_STAGES[-1],
                      on_stage=on_stage, validating=True)
    model = need(checked.model, "model analysis")
    data = _data(checked, model)
    if not data.has_expected:
        _check_engine(checked, registry)
    outcome = profile(None, config_file, overrides, registry, until=BUILD_ONLY,
                      on_stage=on_stage, validating=True)
    elf = need(outcome.build, "build").elf
    window = find_window(elf, sum(t.size_bytes or 0 for t in model.inputs))
    return Prepared(outcome, data, window, started)


def validate(prepared: Prepared, registry: Registry, *,
             progress: Progress | None = None) -> Validation:
    """Run every window and score every sample (see the module's docstring)."""
    outcome, data, window = prepared.outcome, prepared.data, prepared.window
    model = need(outcome.model, "model analysis")
    state = _state_folder(outcome, need(outcome.build, "build").elf, data)
    found = scores(model.outputs, outcome.config.validation.top_k)
    samples_file = state / "samples.jsonl"
    device_seconds, resumed = 0.0, 0
    first: Capture | None = None
    with samples_file.open("w", encoding="utf-8") as lines:
        for start, batch in _windows(data, window):
            kept = state / f"window-{start}.json"
            running = _Speed(progress, data.count, start, start - resumed, device_seconds)
            device, host, ran = _window_outputs(outcome, registry, data, window, batch, start,
                                                kept, running)
            if ran is None:
                resumed += len(batch)
            else:
                device_seconds += ran.seconds
                first = first or ran.capture
            _score(found, data, start, device, host, lines)
            if progress is not None:
                ran_here = start + len(batch) - resumed
                progress(start + len(batch), data.count,
                         ran_here / device_seconds if device_seconds else None)
    return Validation(outcome, data, tuple(found), samples_file,
                      time.perf_counter() - prepared.started, device_seconds, resumed, first)


@attrs.define
class _Speed:
    """Tells ``progress`` the samples done and the device's samples per second, as a window's
    records arrive: the samples run so far over the device time so far."""

    progress: Progress | None
    total: int
    start: int  # the data set's index of the window's first sample
    ran_before: int  # samples run on the device in earlier windows of this run
    seconds_before: float
    began: float = attrs.field(factory=time.perf_counter)

    def __call__(self, done: int) -> None:
        if self.progress is None:
            return
        seconds = self.seconds_before + time.perf_counter() - self.began
        ran = self.ran_before + done
        self.progress(self.start + done, self.total, ran / seconds if ran and seconds else None)


def _check_engine(outcome: ProfileOutcome, registry: Registry) -> None:
    engine = outcome.config.engine.type
    module = registry.engine(engine).module
    if not hasattr(module, "hpx_host_outputs"):
        raise PluginError(f"engine {engine!r} has no host reference for any input "
                          "(hpx_host_outputs), and the data set carries no expected outputs",
                          "add the outputs the model's exporter computed for each sample to "
                          "the .npz as 'expected' (docs/validation.md)")


def _data(outcome: ProfileOutcome, model: ModelInfo) -> DataSet:
    section = outcome.config.validation
    if section.data is None:
        raise ConfigError("no data set to validate with",
                          "give --data FILE|DIR (or validation.data in the config)")
    labels = Path(section.labels) if section.labels is not None else None
    return load_data(Path(section.data), model.inputs, labels=labels, limit=section.limit,
                     outputs=model.outputs)


def _windows(data: DataSet, window: Window) -> Iterator[tuple[int, list[tuple[bytes, ...]]]]:
    """The data set as (first index, samples) windows; one window in memory at a time."""
    samples = data.samples()
    start = 0
    while start < data.count:
        batch = list(islice(samples, min(window.capacity, data.count - start)))
        if not batch:
            return
        yield start, batch
        start += len(batch)


def _window_outputs(outcome: ProfileOutcome, registry: Registry, data: DataSet, window: Window,
                    batch: Sequence[tuple[bytes, ...]], start: int, kept: Path,
                    running: Callable[[int], None],
                    ) -> tuple[Outputs, Outputs, WindowRun | None]:
    """The device's and the host's outputs of one window (the host's: the data set's expected
    outputs when it has them, else the engine's host reference): kept ones if a stopped run
    left them, else run now and kept."""
    saved = _kept_window(kept, len(batch))
    if saved is not None:
        return saved[0], saved[1], None
    model = need(outcome.model, "model analysis")
    elf = need(outcome.build, "build").elf
    ran = run_window(outcome.board, elf, window, batch, start, len(model.outputs),
                     timeout=600.0, progress=running,
                     records_per_sample=sum(-(-(t.size_bytes or 0) // VOUT_CHUNK)
                                            for t in model.outputs))
    device = [ran.outputs.get(start + k, ()) for k in range(len(batch))]
    host = (data.expected(model.outputs, start, len(batch)) if data.has_expected
            else _host_outputs(outcome, registry, model, batch))
    write_atomic(kept, json.dumps({"device": [[t.hex() for t in s] for s in device],
                                   "host": [[t.hex() for t in s] for s in host]}).encode())
    return device, host, ran


def _kept_window(kept: Path, samples: int) -> tuple[Outputs, Outputs] | None:
    """The device's and the host's outputs a stopped run kept for this window; None when it
    kept none or the file is not whole (the window then runs again)."""
    try:
        saved = json.loads(kept.read_text("utf-8"))
        sides = tuple([tuple(bytes.fromhex(t) for t in s) for s in saved[side]]
                      for side in ("device", "host"))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    device, host = sides
    return (device, host) if len(device) == len(host) == samples else None


def _host_outputs(outcome: ProfileOutcome, registry: Registry, model: ModelInfo,
                  batch: Sequence[tuple[bytes, ...]]) -> list[tuple[bytes, ...]]:
    from hpx_core.contract import HostOutputsRequest

    copy = outcome.model_copy
    ctx = RunContext(outcome.validated, registry)
    request = HostOutputsRequest(ctx.engine, model, copy.path if copy else model.path, batch,
                                 need(outcome.contribution, "firmware generation").facts)
    answer = ctx.hooks.host_outputs(ctx.engine.name, request)
    if answer is None or len(answer.outputs) != len(batch):
        raise PluginError(f"engine {ctx.engine.name!r} answered no host outputs for the batch",
                          "the engine's hpx_host_outputs must answer one entry per sample")
    return list(answer.outputs)


def _score(found: list[OutputScore], data: DataSet, start: int,
           device: Sequence[tuple[bytes, ...]], host: Sequence[tuple[bytes, ...]],
           lines: TextIO) -> None:
    for k, (d, h) in enumerate(zip(device, host, strict=True)):
        index = start + k
        label = data.labels[index] if data.labels is not None else None
        if len(d) != len(found):
            raise PluginError(f"sample {index}: the device sent {len(d)} of {len(found)} "
                              "outputs", "the firmware's validation pass lost outputs")
        said = [score.add(index, d[t], h[t], label) for t, score in enumerate(found)]
        lines.write(json.dumps({"sample": index, "label": label, "outputs": said}) + "\n")


def _state_folder(outcome: ProfileOutcome, elf: Path, data: DataSet) -> Path:
    """Where this run keeps its windows: one folder per firmware image and data set, in the
    run's work folder, so a rerun of the same finds what a stopped one finished."""
    digest = hashlib.sha256(elf.read_bytes())
    for source in data.sources:
        stat = source.path.stat()
        digest.update(f"{source.path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    digest.update(json.dumps([data.count, data.labels is not None]).encode())
    firmware = need(outcome.built, "build").firmware
    folder = firmware.work_folder / "validation" / digest.hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    return folder

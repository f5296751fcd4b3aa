"""What ``--check-layers`` costs: KWS (tflm reference) on qemu-m55, with and without the check.

    python benchmarks/check_layers.py [--repeats 3]

Each configuration is profiled once to build it, then ``--repeats`` times warm (nothing to
rebuild), the two alternating so that a change in the machine's load falls on both; the table
shows the median wall time of the run stage (QEMU, capture, results: where
the check's extra inference, its records and the host comparison land), of the firmware stage
(where the host reference runs) and of the whole profile, and the ratio of each with the check
to without it.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from hpx_core.config.validate import overrides
from hpx_core.pipeline import ProfileOutcome, profile

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
RUN, FIRMWARE = "run, capture and results", "firmware generation"


def timed(work: Path, check: str) -> ProfileOutcome:
    settings = overrides("benchmark", engine__type="tflm", engine__backend="reference",
                         target__board="qemu-m55", output__dir=str(work / "results"),
                         profiling__iterations=3, profiling__check_layers=check)
    return profile(KWS, None, settings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-check-bench-"))
    modes = ("off", "first")
    outcomes: dict[str, list[ProfileOutcome]] = {mode: [] for mode in modes}
    for mode in modes:
        timed(work / mode, mode)  # build once
    for _ in range(args.repeats):
        for mode in modes:
            outcomes[mode].append(timed(work / mode, mode))
    rows: dict[str, dict[str, float]] = {}
    for mode, done in outcomes.items():
        rows[mode] = {
            "run": statistics.median(o.seconds[RUN] for o in done),
            "firmware": statistics.median(o.seconds[FIRMWARE] for o in done),
            "total": statistics.median(sum(o.seconds.values()) for o in done),
        }
        whole = done[0].measurement.whole_median if done[0].measurement else 0
        print(f"check_layers={mode}: whole inference {whole:,} instructions", flush=True)
    print("| stage | without the check | with --check-layers | ratio |")
    print("|---|---|---|---|")
    for key in ("run", "firmware", "total"):
        off, on = rows["off"][key], rows["first"][key]
        print(f"| {key} | {off:.2f} s | {on:.2f} s | {on / off:.2f}x |")


if __name__ == "__main__":
    main()

"""Validating a data set against profiling each sample: samples per second.

    python benchmarks/validate_speed.py [--backend cmsis_nn] [--samples 200] [--profiles 3]

Both sides start from the same state: the engine library and the validation firmware built once
before any timing (a warm-up validation of 10 samples in the same work folder), so neither side
pays a compile the other does not. Then, alternating over the repeats:

- ``hpx validate`` of the project's KWS data set in a new process (the windows an earlier run
  kept are removed first, so every sample runs on the device);
- ``hpx profile`` of one sample in a new process (``--engine-config input=SAMPLE.npy``), as a
  user without ``hpx validate`` would do it: its firmware embeds the sample, so each profile
  builds its own image, as it would for every sample of a data set. Its compiles go through
  the compiler cache earlier profiles filled (the units that do not hold the sample are hits
  after the first), as for a user profiling sample after sample: that favours this side.

It prints each side's seconds per sample (median and spread) and the ratio, then QEMU's
instruction rate on the samples against QEMU alone running the same firmware's counted
passes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
DATA = REPO / "examples/datasets/kws/kws_espeak_200.npz"
HPX = [str(Path(sys.executable).with_name("hpx"))]


def hpx(*args: str, cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([*HPX, *args], cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def validate(backend: str, samples: int, work: Path) -> tuple[float, dict[str, object]]:
    shutil.rmtree(work / "out", ignore_errors=True)
    for kept in work.glob("hpx-work/*/validation"):
        shutil.rmtree(kept)
    seconds = hpx("validate", str(KWS), "--engine", "tflm", "--backend", backend, "--board",
                  "qemu-m55", "--data", str(DATA), "--limit", str(samples), "--output-dir",
                  "out", "--work-dir", "hpx-work", cwd=work)
    (bundle,) = (work / "out").glob("*-validation")
    return seconds, json.loads((bundle / "validation.json").read_text("utf-8"))


def profile_one(backend: str, sample: Path, work: Path) -> float:
    return hpx("profile", str(KWS), "--engine", "tflm", "--backend", backend, "--board",
               "qemu-m55", "--engine-config", f"input={sample}", "--output-dir", "profiles",
               "--work-dir", "hpx-work", cwd=work)


def spread(values: list[float]) -> str:
    return (f"median {statistics.median(values):.3f} s (min {min(values):.3f}, "
            f"max {max(values):.3f}, n={len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="cmsis_nn")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--profiles", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-validate-speed-"))
    features = np.load(DATA)["features"]
    from hpx_core.reading import load_model
    from hpx_core.validation.data import quantize

    (tensor,) = load_model(KWS).inputs
    samples = []
    for k in range(args.profiles):
        path = work / f"sample{k}.npy"
        np.save(path, quantize(features[k].reshape(tuple(tensor.shape)), tensor)[0])
        samples.append(path)
    validate(args.backend, 10, work)  # builds the library and the validation firmware once
    print("warmed: the engine library and the validation firmware are built; each profile "
          "below builds its own firmware (the sample is embedded in it)")
    per_sample_validate, per_sample_profile, document = [], [], None
    for k in range(args.profiles):  # the sides alternate
        seconds, document = validate(args.backend, args.samples, work)
        per_sample_validate.append(seconds / args.samples)
        per_sample_profile.append(profile_one(args.backend, samples[k], work))
    assert document is not None
    v, p = statistics.median(per_sample_validate), statistics.median(per_sample_profile)
    print(f"KWS ({args.backend}) on qemu-m55, {args.samples} samples")
    print(f"  hpx validate, per sample:      {spread(per_sample_validate)}")
    print(f"  hpx profile of one sample:     {spread(per_sample_profile)}")
    print(f"  validate is {p / v:,.0f}x faster per sample")
    speed = document["speed"]
    counted = document["counted"]
    assert isinstance(speed, dict) and isinstance(counted, dict)
    whole = min(counted["whole_raw"]) - counted["calibration_min"]
    rate = whole * args.samples / speed["device_seconds"]
    print(f"  on the device: {speed['samples_per_second']:,.1f} samples/s, "
          f"{rate / 1e6:,.0f} M instructions/s in the samples' inferences "
          f"({whole:,} instructions each)")
    plain = plain_qemu_rate(work, whole, len(counted["whole_raw"]))
    print(f"  plain QEMU on the same firmware, counted passes only: {plain / 1e6:,.0f} M "
          f"instructions/s (the samples run at {rate / plain:.0%} of it)")


def plain_qemu_rate(work: Path, whole: int, iterations: int) -> float:
    """Instructions per second of QEMU alone on the validation firmware as built (its window
    empty: the counted passes only, about warm-up + 2 x iterations inferences, start-up
    included, as in each validation window)."""
    from hpx_core.boards import get_board
    from hpx_core.run import qemu_argv

    elf = next(p for p in (work / "hpx-work").glob("*/build/hpx_app.elf")
               if b"hpx_validate_window" in p.read_bytes())
    times = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run(qemu_argv(get_board("qemu-m55"), elf), check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return whole * (1 + 2 * iterations) / statistics.median(times)


if __name__ == "__main__":
    main()

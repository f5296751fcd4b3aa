"""Warm re-run of one tflm profile vs QEMU alone on the same ELF.

    python benchmarks/warm_rerun.py [MODEL] [--backend reference] [--board qemu-m55]

Runs the profile once (cold or cached), then again with nothing changed (warm: no file is
compiled), then QEMU alone on the same ELF, and prints the times and their ratio. Then the same
warm re-run as a user types it, ``hpx profile`` in a new process each time: that adds Python's
start-up and imports, the plugin registry, the config and the bundle to the in-process run
(with Python's bytecode cache on, as an installed package has it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hpx_core.boards import get_board
from hpx_core.config.validate import overrides
from hpx_core.pipeline import ProfileOutcome, profile
from hpx_core.run import qemu_argv

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def profile_model(model: Path, backend: str, board: str, work: Path) -> ProfileOutcome:
    settings = overrides("benchmark", engine__type="tflm", engine__backend=backend,
                         target__board=board, output__dir=str(work / "results"),
                         profiling__iterations=3)
    return profile(model, None, settings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", type=Path, default=KWS)
    parser.add_argument("--backend", default="reference")
    parser.add_argument("--board", default="qemu-m55")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-warm-"))
    first = profile_model(args.model, args.backend, args.board, work)
    assert first.contribution is not None and first.build is not None
    print(
        f"first run: {sum(first.seconds.values()):.2f} s (library built: "
        f"{first.contribution.libraries[0].built}, app files compiled: {first.build.compiled})"
    )
    warm, qemu = [], []
    for _ in range(args.repeats):
        again = profile_model(args.model, args.backend, args.board, work)
        assert again.build is not None and again.contribution is not None
        assert again.build.compiled == 0 and not again.contribution.libraries[0].built, (
            "warm run rebuilt something")
        warm.append(sum(again.seconds.values()))
        start = time.monotonic()
        subprocess.run(qemu_argv(get_board(args.board), again.build.elf), capture_output=True,
                       check=True)
        qemu.append(time.monotonic() - start)
    w, q = statistics.median(warm), statistics.median(qemu)
    print(
        f"warm re-run (median of {args.repeats}): {w:.3f} s   stages: "
        + ", ".join(f"{k} {v:.3f}" for k, v in again.seconds.items())
    )
    print(f"QEMU alone, same ELF (median of {args.repeats}): {q:.3f} s")
    print(f"ratio warm / QEMU alone: {w / q:.2f}")
    cli, alone, added = _cli_runs(args.model, args.backend, args.board, work / "cli",
                                  args.repeats)
    print(f"hpx profile, a new process each time (median of {args.repeats}): {cli:.3f} s; "
          f"QEMU alone on its ELF, run after each (default iterations): {alone:.3f} s; "
          f"ratio: {cli / alone:.2f}")
    print(f"added to QEMU's time (median over the runs of the run's wall time minus the QEMU "
          f"time it recorded): {added:.3f} s")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _cli_runs(model: Path, backend: str, board: str, folder: Path,
              repeats: int) -> tuple[float, float, float]:
    """Medians of ``hpx profile`` re-runs in ``folder`` (the first one warms it): the wall
    time, QEMU alone on the same ELF run right after each, and each run's wall time minus the
    QEMU time its bundle recorded (QEMU's own time varies by a tenth from run to run; the
    difference within one run does not)."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = [str(Path(sys.executable).parent / "hpx"), "profile", str(model), "--engine", "tflm",
            "--backend", backend, "--board", board]
    # An installed hpx has its bytecode compiled (pip does it): without it every start
    # compiles a few hundred modules again, which is not what a user waits for.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(argv, cwd=folder, capture_output=True, check=True, env=env)
    walls, alone, added = [], [], []
    for _ in range(repeats):
        start = time.monotonic()
        subprocess.run(argv, cwd=folder, capture_output=True, check=True, env=env)
        walls.append(time.monotonic() - start)
        bundle = sorted((folder / "hpx-results").iterdir())[-1]
        run = json.loads((bundle / "run.json").read_text(encoding="utf-8"))
        added.append(walls[-1] - run["seconds"])
        start = time.monotonic()
        subprocess.run(run["argv"], capture_output=True, check=True)
        alone.append(time.monotonic() - start)
    return statistics.median(walls), statistics.median(alone), statistics.median(added)


if __name__ == "__main__":
    main()

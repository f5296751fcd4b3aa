"""Warm re-run of one tflm profile vs QEMU alone on the same ELF.

    python benchmarks/warm_rerun.py [MODEL] [--backend reference] [--board qemu-m55]

Runs the profile once (cold or cached), then again with nothing changed (warm: no file is
compiled), then QEMU alone on the same ELF, and prints the times and their ratio. Then the same
warm re-run as a user types it, ``hpx profile`` in a new process each time: that adds Python's
start-up and imports, the plugin registry, the config and the bundle to the in-process run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hpx_tflm.e2e import profile_model

from hpx_core.boards import get_board
from hpx_core.run import qemu_argv

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", type=Path, default=KWS)
    parser.add_argument("--backend", default="reference")
    parser.add_argument("--board", default="qemu-m55")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-warm-"))
    first = profile_model(args.model, args.backend, args.board, work)
    print(
        f"first run: {first.seconds['total']:.2f} s (library built: {first.library_built}, "
        f"app files compiled: {first.app_files})"
    )
    warm, qemu = [], []
    for _ in range(args.repeats):
        again = profile_model(args.model, args.backend, args.board, work)
        assert again.app_files == 0 and not again.library_built, "warm run rebuilt something"
        warm.append(again.seconds["total"])
        start = time.monotonic()
        subprocess.run(qemu_argv(get_board(args.board), again.elf), capture_output=True, check=True)
        qemu.append(time.monotonic() - start)
    w, q = statistics.median(warm), statistics.median(qemu)
    print(
        f"warm re-run (median of {args.repeats}): {w:.3f} s   stages: "
        + ", ".join(f"{k} {v:.3f}" for k, v in again.seconds.items())
    )
    print(f"QEMU alone, same ELF (median of {args.repeats}): {q:.3f} s")
    print(f"ratio warm / QEMU alone: {w / q:.2f}")
    cli = _cli_seconds(args.model, args.backend, args.board, work / "cli", args.repeats)
    print(f"hpx profile, a new process each time (median of {args.repeats}): {cli:.3f} s; "
          f"ratio to QEMU alone: {cli / q:.2f}")


def _cli_seconds(model: Path, backend: str, board: str, folder: Path, repeats: int) -> float:
    """Median wall time of ``hpx profile`` re-runs in ``folder`` (the first one warms it)."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = [str(Path(sys.executable).parent / "hpx"), "profile", str(model), "--engine", "tflm",
            "--backend", backend, "--board", board]
    times = []
    for _ in range(repeats + 1):
        start = time.monotonic()
        subprocess.run(argv, cwd=folder, capture_output=True, check=True)
        times.append(time.monotonic() - start)
    return statistics.median(times[1:])


if __name__ == "__main__":
    main()

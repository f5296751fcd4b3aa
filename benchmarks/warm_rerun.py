"""Warm re-run of one tflm profile vs QEMU alone on the same ELF.

    python benchmarks/warm_rerun.py [MODEL] [--backend reference] [--board qemu-m55]

Runs the profile once (cold or cached: this warms both sides, the ELF built and QEMU run on it),
then in turn again with nothing changed (warm: no file is compiled) and QEMU alone on the same
ELF, which goes first alternating over the repeats, and prints the medians, their spreads and
their ratio. Then the same warm re-run as a user types it, ``hpx profile`` in a new process
each time: that adds Python's start-up and imports, the plugin registry, the config and the
bundle to the in-process run (with Python's bytecode cache on, as an installed package has it).
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
    warm: list[float] = []
    qemu: list[float] = []
    elf = first.build.elf  # both sides warm: the first run built it and ran QEMU on it
    for repeat in range(args.repeats):
        for side in ("profile", "qemu") if repeat % 2 == 0 else ("qemu", "profile"):
            if side == "qemu":
                qemu.append(_timed(qemu_argv(get_board(args.board), elf), None, None))
                continue
            again = profile_model(args.model, args.backend, args.board, work)
            assert again.build is not None and again.contribution is not None
            assert again.build.compiled == 0 and not again.contribution.libraries[0].built, (
                "warm run rebuilt something")
            warm.append(sum(again.seconds.values()))
    w, q = statistics.median(warm), statistics.median(qemu)
    print(
        f"warm re-run (median of {args.repeats}, sides alternating): {w:.3f} s "
        f"({_spread(warm)})   stages: "
        + ", ".join(f"{k} {v:.3f}" for k, v in again.seconds.items())
    )
    print(f"QEMU alone, same ELF (median of {args.repeats}): {q:.3f} s ({_spread(qemu)})")
    print(f"ratio warm / QEMU alone: {w / q:.2f}")
    cli, alone, added = _cli_runs(args.model, args.backend, args.board, work / "cli",
                                  args.repeats)
    print(f"hpx profile, a new process each time (median of {args.repeats}): "
          f"{statistics.median(cli):.3f} s ({_spread(cli)}); QEMU alone on its ELF, before or "
          f"after each run in turn (default iterations): {statistics.median(alone):.3f} s "
          f"({_spread(alone)}); ratio: {statistics.median(cli) / statistics.median(alone):.2f}")
    print(f"added to QEMU's time (median over the runs of the run's wall time minus the QEMU "
          f"time it recorded): {statistics.median(added):.3f} s ({_spread(added)})")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _spread(values: list[float]) -> str:
    return f"{min(values):.3f}-{max(values):.3f}"


def _cli_runs(model: Path, backend: str, board: str, folder: Path,
              repeats: int) -> tuple[list[float], list[float], list[float]]:
    """``hpx profile`` re-runs in ``folder`` (the first one warms both sides: it builds the
    ELF and runs QEMU on it): each one's wall time, QEMU alone on the same ELF (run before
    the profile on odd repeats, after it on even ones), and each run's wall time minus the
    QEMU time its bundle recorded (QEMU's own time varies by a tenth from run to run; the
    difference within one run does not)."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = [str(Path(sys.executable).parent / "hpx"), "profile", str(model), "--engine", "tflm",
            "--backend", backend, "--board", board]
    # An installed hpx has its bytecode compiled (pip does it): without it every start
    # compiles a few hundred modules again, which is not what a user waits for.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(argv, cwd=folder, capture_output=True, check=True, env=env)
    bundle = sorted((folder / "hpx-results").iterdir())[-1]
    qemu = json.loads((bundle / "run.json").read_text(encoding="utf-8"))["argv"]
    walls: list[float] = []
    alone: list[float] = []
    added: list[float] = []
    for repeat in range(repeats):
        if repeat % 2:
            alone.append(_timed(qemu, None, None))
        walls.append(_timed(argv, folder, env))
        bundle = sorted((folder / "hpx-results").iterdir())[-1]
        run = json.loads((bundle / "run.json").read_text(encoding="utf-8"))
        added.append(walls[-1] - run["seconds"])
        if not repeat % 2:
            alone.append(_timed(qemu, None, None))
    return walls, alone, added


def _timed(argv: list[str], cwd: Path | None, env: dict[str, str] | None) -> float:
    start = time.monotonic()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=True, env=env)
    return time.monotonic() - start


if __name__ == "__main__":
    main()

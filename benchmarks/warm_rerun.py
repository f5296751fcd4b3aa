"""Warm re-run of one tflm profile vs QEMU alone on the same ELF.

    python benchmarks/warm_rerun.py [MODEL] [--backend reference] [--board qemu-m55]

Runs the profile once (cold or cached: this warms both sides, the ELF built and QEMU run on it),
then in turn again with nothing changed (warm: no file is compiled) and QEMU alone on the same
ELF, which goes first alternating over the repeats, and prints the medians, their spreads and
their ratio. Then the same warm re-run as a user types it, ``hpx profile`` in a new process
each time: that adds Python's start-up and imports, the plugin registry, the config and the
bundle to the in-process run (with Python's bytecode cache on, as an installed package has it).
It runs with the console script's head start (QEMU started on the last run's ELF while the
stages confirm it, :mod:`hpx_core.head_start`) and without it (``HPX_HEAD_START=off``), the two
and QEMU alone taking turns to go first.
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
    sides = _cli_runs(args.model, args.backend, args.board, work / "cli", args.repeats)
    alone = statistics.median(sides["qemu alone"][0])
    print(f"QEMU alone on the profile's ELF (default iterations, median of {args.repeats}): "
          f"{alone:.3f} s ({_spread(sides['qemu alone'][0])})")
    for side in ("hpx profile", "hpx profile, HPX_HEAD_START=off"):
        walls, added = sides[side]
        print(f"{side}, a new process each time (median of {args.repeats}): "
              f"{statistics.median(walls):.3f} s ({_spread(walls)}); minus QEMU alone: "
              f"{statistics.median(walls) - alone:.3f} s; each run's wall time minus the QEMU "
              f"time it recorded: {statistics.median(added):.3f} s ({_spread(added)})")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _spread(values: list[float]) -> str:
    return f"{min(values):.3f}-{max(values):.3f}"


def _cli_runs(model: Path, backend: str, board: str, folder: Path,
              repeats: int) -> dict[str, tuple[list[float], list[float]]]:
    """``hpx profile`` re-runs in ``folder``, with its head start and without
    (``HPX_HEAD_START=off``), and QEMU alone on the same ELF, the three in turn, each repeat
    starting with the next (the first run warms all three: it builds the ELF and runs QEMU on
    it). Each side's wall times and, for the profiles, each run's wall time minus the QEMU time
    its bundle recorded (QEMU's own time varies by a tenth from run to run; the difference
    within one run does not; with the head start QEMU's time overlaps the stages')."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = [str(Path(sys.executable).parent / "hpx"), "profile", str(model), "--engine", "tflm",
            "--backend", backend, "--board", board]
    # An installed hpx has its bytecode compiled (pip does it): without it every start
    # compiles a few hundred modules again, which is not what a user waits for.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(argv, cwd=folder, capture_output=True, check=True, env=env)
    bundle = sorted((folder / "hpx-results").iterdir())[-1]
    qemu = json.loads((bundle / "run.json").read_text(encoding="utf-8"))["argv"]
    order = ["hpx profile", "hpx profile, HPX_HEAD_START=off", "qemu alone"]
    sides: dict[str, tuple[list[float], list[float]]] = {side: ([], []) for side in order}
    for repeat in range(repeats):
        for side in order[repeat % 3:] + order[:repeat % 3]:
            walls, added = sides[side]
            if side == "qemu alone":
                walls.append(_timed(qemu, None, None))
                continue
            walls.append(_timed(argv, folder, env if side == "hpx profile"
                                else {**env, "HPX_HEAD_START": "off"}))
            bundle = sorted((folder / "hpx-results").iterdir())[-1]
            run = json.loads((bundle / "run.json").read_text(encoding="utf-8"))
            assert run["head_start"] == (side == "hpx profile"), side
            added.append(walls[-1] - run["seconds"])
    return sides


def _timed(argv: list[str], cwd: Path | None, env: dict[str, str] | None) -> float:
    start = time.monotonic()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=True, env=env)
    return time.monotonic() - start


if __name__ == "__main__":
    main()

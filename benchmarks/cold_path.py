"""The cold path a new user meets, in one run: an empty hpx cache and an empty compiler cache.

    python benchmarks/cold_path.py [--only whole,kws,vww,moved,executorch,executorch-whole]
        [--before REV] [--repeats N] [--keep]

Every step works in private folders under one temporary folder (``HPX_CACHE_DIR`` and
``CCACHE_DIR`` of its own; the user's caches are never read or written). A step first fetches
the pinned sources into its cache (set-up, timed apart), then profiles on qemu-m55 with an
empty compiler cache:

- ``whole``: KWS (tflm reference) with the whole library (``kernels: all``), as hpx built it
  before libraries were kept as units;
- ``kws``: KWS with the model's units, in a new empty cache;
- ``vww``: VWW after KWS, in the ``kws`` step's caches: only the units KWS did not need (cold
  when ``kws`` is not among the steps);
- ``moved``: the ``kws`` step's caches moved to another folder, KWS profiled again (no library
  unit is compiled: the units are used where they are);
- ``executorch``: the seed's tier1 arm program, in a new empty cache;
- ``executorch-whole``: the same with every unit of the runtime core (``kernels: all``);
- ``executorch-before`` (with ``--before REV``, e.g. the commit before engine libraries were
  kept as units): the same program profiled by the code at ``REV``, checked out in a temporary
  worktree and run in a process of its own, in caches of its own.

The first line says which host ``flatc`` the ExecuTorch steps copy (one of the pinned version,
e.g. the one ``scripts/setup`` takes from ExecuTorch's wheel), or that they compile their own.
Each step prints its compile units (engine libraries, then the app), its wall time with set-up
excluded and the load average before and after it; the ratios and the targets come last. The
targets hold for a quiet machine: at a load above the cores every figure is stretched.

Steps share nothing (each has its own empty caches), so there is nothing to warm for both
sides of a ratio; what they do share is the machine, whose state drifts. With ``--repeats N``
the steps run N times in fresh folders, the independent groups (``whole``; ``kws`` with the
steps that follow it; ``executorch``; ``executorch-whole``; ``executorch-before``) in reversed
order on every second repeat, and each figure is the median run's (the lower middle one of
an even count) with the range.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any
from unittest import mock

import attrs

from hpx_core.config.validate import overrides
from hpx_core.pipeline import ProfileOutcome, profile

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "examples/models/mlperf_tiny"
TIER1 = REPO / "tests/fixtures/executorch_tier1/tier1_arm.pte"
STEPS = ("whole", "kws", "vww", "moved", "executorch", "executorch-whole", "executorch-before")
SETUP = "sources"


@attrs.frozen
class Step:
    """One step's figures."""

    name: str
    setup_s: float
    wall_s: float
    library_units: int
    app_units: int
    load_before: float
    load_after: float
    libraries: str


def private(hpx_cache: Path, ccache: Path) -> AbstractContextManager[Any]:
    """``HPX_CACHE_DIR`` and ``CCACHE_DIR`` set to these folders for the block."""
    return mock.patch.dict(os.environ, HPX_CACHE_DIR=str(hpx_cache), CCACHE_DIR=str(ccache))


def _run(model: Path, engine: str, backend: str, work: Path, until: str | None,
         config: Mapping[str, Any]) -> ProfileOutcome:
    settings = overrides("benchmark", engine__type=engine, engine__backend=backend,
                         target__board="qemu-m55", output__dir=str(work / "results"),
                         engine__config=dict(config) or None)
    return profile(model, None, settings, until=until)


def step(name: str, model: Path, engine: str, backend: str, caches: Path, work: Path,
         **config: Any) -> Step:
    """Fetch the sources (set-up), then the whole profile in the same caches."""
    with private(caches / "hpx", caches / "ccache"):
        started = time.monotonic()
        _run(model, engine, backend, work, SETUP, config)
        setup = time.monotonic() - started
        load = os.getloadavg()[0]
        started = time.monotonic()
        outcome = _run(model, engine, backend, work, None, config)
        wall = time.monotonic() - started
    uses = outcome.contribution.libraries if outcome.contribution else ()
    assert outcome.build is not None and outcome.measurement is not None
    done = Step(name, setup, wall, sum(u.compiled for u in uses), outcome.build.compiled,
                load, os.getloadavg()[0],
                "; ".join(f"{u.name}" + (f" ({linked})" if (linked := getattr(u, "linked", ""))
                                         else "")
                          + f": {u.compiled} units" for u in uses))
    print(f"{name}: {wall:.1f} s ({done.library_units} library units + {done.app_units} app "
          f"units; set-up {setup:.1f} s; load {load:.1f} -> {done.load_after:.1f}); "
          f"{done.libraries}; {outcome.measurement.whole_median:,} instructions", flush=True)
    return done


GROUPS = (("whole",), ("kws", "vww", "moved"), ("executorch",), ("executorch-whole",),
          ("executorch-before",))
"""Steps that run in this order, one group after another (the groups are independent)."""


def ordered(chosen: list[str], repeat: int) -> list[str]:
    """``chosen`` in its groups' order, the groups reversed on odd repeats."""
    groups = [[s for s in group if s in chosen] for group in GROUPS]
    return [s for group in (groups if repeat % 2 == 0 else groups[::-1]) for s in group]


def median_steps(runs: Mapping[str, list[Step]]) -> dict[str, Step]:
    """Each step's median run (the lower middle one for an even count: a run's figures stay
    together), its range printed when it ran more than once."""
    out: dict[str, Step] = {}
    for name, steps in runs.items():
        ranked = sorted(steps, key=lambda s: s.wall_s)
        out[name] = ranked[(len(ranked) - 1) // 2]
        if len(steps) > 1:
            print(f"{name}: median {out[name].wall_s:.1f} s "
                  f"({ranked[0].wall_s:.1f}-{ranked[-1].wall_s:.1f}, n={len(steps)})")
    return out


def ratios(done: Mapping[str, Step]) -> None:
    """The targets of the cold path against this run's figures."""
    if "kws" in done:
        kws = done["kws"]
        print(f"KWS first profile: {kws.wall_s:.1f} s (target: at most 120 s at a load under 2; "
              f"load here {kws.load_before:.1f})")
        if "whole" in done:
            whole = done["whole"]
            print(f"KWS units / whole library: {kws.wall_s / whole.wall_s:.2f} of the time "
                  f"(target at most 0.35), {kws.library_units} / {whole.library_units} library "
                  "units")
    if "vww" in done:
        print(f"VWW after KWS: {done['vww'].wall_s:.1f} s, {done['vww'].library_units} library "
              "units (target: at most 60 s)")
    if "moved" in done:
        print(f"KWS from the moved caches: {done['moved'].library_units} library units "
              "(target: 0)")
    if "executorch" in done and "executorch-whole" in done:
        ours, whole = done["executorch"], done["executorch-whole"]
        print(f"tier1 arm: {ours.wall_s / whole.wall_s:.2f} of the whole core's time, "
              f"{ours.library_units} / {whole.library_units} library units")
    if "executorch" in done and "executorch-before" in done:
        ours, before = done["executorch"], done["executorch-before"]
        print(f"tier1 arm: {ours.wall_s / before.wall_s:.2f} of the code before's time (target "
              f"at most 0.5), {ours.library_units} / {before.library_units} library units")


def at_revision(rev: str, root: Path) -> Step:
    """The ``executorch-before`` step run by the code at ``rev``: a worktree of it first on a
    process's import path, this script run there for the one step."""
    tree = root / "code-before"
    git = ["git", "-C", str(REPO), "worktree"]
    subprocess.run([*git, "add", "--detach", str(tree), rev], check=True, capture_output=True)
    try:
        paths = [tree, *sorted((tree / "plugins").glob("hpx_*")),
                 tree / "examples/engines/kernelbench"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in paths)}
        run = subprocess.run([sys.executable, __file__, "--one", "executorch-before",
                              "--root", str(root)], env=env, check=True, capture_output=True,
                             text=True)
    finally:
        subprocess.run([*git, "remove", "--force", str(tree)], check=False, capture_output=True)
    *lines, last = run.stdout.splitlines()
    print(lines[-1] if lines else "", flush=True)
    return Step(**json.loads(last))


def host_flatc() -> str:
    """Which host ``flatc`` the ExecuTorch steps take (imported here: ``--one`` runs with the
    plugins of another revision, which may not have these)."""
    from hpx_executorch.host_tools import first_flatc
    from hpx_executorch.prebuilt_flatc import FLATBUFFERS

    flatc = first_flatc(FLATBUFFERS)
    return f"copied from {flatc}" if flatc else "compiled"


def _moved(caches: Path, to: Path) -> Path:
    """``caches`` moved to ``to`` (when there is something to move)."""
    if caches.exists():
        shutil.move(caches, to)
    return to


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(STEPS), help="steps, comma-separated")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--before", metavar="REV", help="the code for executorch-before")
    parser.add_argument("--repeats", type=int, default=1, help="runs of every step, "
                        "the independent groups in reversed order every second run")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one step, printed as JSON
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(chosen) - set(STEPS))
    if unknown:
        parser.error(f"no step {unknown[0]!r}; steps: {', '.join(STEPS)}")
    if "executorch-before" in chosen and not args.before:
        chosen.remove("executorch-before")
    if args.one:
        one = step(args.one, TIER1, "executorch", "arm", args.root / args.one,
                   args.root / f"work-{args.one}")
        print(json.dumps(attrs.asdict(one)))
        return
    root = Path(tempfile.mkdtemp(prefix="hpx-cold-path-"))
    print(f"{os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}; folders under {root}; "
          f"host flatc: {host_flatc()}", flush=True)
    runs: dict[str, list[Step]] = {}
    try:
        for repeat in range(args.repeats):
            for name, made in _one_repeat(ordered(chosen, repeat), root / f"repeat{repeat}",
                                          args.before).items():
                runs.setdefault(name, []).append(made)
        ratios(median_steps(runs))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def _one_repeat(chosen: list[str], root: Path, before: str | None) -> dict[str, Step]:
    """Every chosen step once, in ``chosen``'s order, in folders under ``root``."""
    done: dict[str, Step] = {}
    kws_caches = root / "kws"
    plan = {
        "whole": lambda: step("whole", MODELS / "kws_ref_model.tflite", "tflm", "reference",
                              root / "whole", root / "work-whole", kernels="all"),
        "kws": lambda: step("kws", MODELS / "kws_ref_model.tflite", "tflm", "reference",
                            kws_caches, root / "work-kws"),
        "vww": lambda: step("vww", MODELS / "vww_96_int8.tflite", "tflm", "reference",
                            kws_caches, root / "work-vww"),
        "moved": lambda: step("moved", MODELS / "kws_ref_model.tflite", "tflm", "reference",
                              _moved(kws_caches, root / "elsewhere"), root / "work-moved"),
        "executorch": lambda: step("executorch", TIER1, "executorch", "arm",
                                   root / "executorch", root / "work-et"),
        "executorch-whole": lambda: step("executorch-whole", TIER1, "executorch", "arm",
                                         root / "executorch-whole", root / "work-et-whole",
                                         kernels="all"),
        "executorch-before": lambda: at_revision(before or "", root),
    }
    for name in chosen:
        done[name] = plan[name]()
    return done


if __name__ == "__main__":
    main()

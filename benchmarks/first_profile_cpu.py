"""Where the CPU of a first profile goes: the README's KWS profile on an empty cache.

    python benchmarks/first_profile_cpu.py [--backend reference] [--before REV]
        [--repeats N] [--keep]

Every run is ``hpx profile kws_ref_model.tflite --engine tflm --board qemu-m55`` in a process
of its own, with an empty hpx cache and an empty compiler cache of its own (the pinned sources
are fetched into it, as a new user's first run does; the user's caches are never touched), so
the two sides share nothing but the source mirrors. In it, at every stage boundary, the CPU
the process used and the CPU its finished child processes used (compilers, CMake, Ninja, git,
QEMU) are read, and the first run of each side prints:

- user + system CPU per stage, hpx and its children apart;
- the compile steps Ninja ran in the app's build folder (its ``.ninja_log``), by file kind,
  with the ten most expensive units (the engine library's units are built in a scratch folder
  that is removed: their share is the firmware generation stage's children);
- the whole run's CPU, wall time and the load average.

With ``--before REV`` the same runs are made by the code at ``REV`` (a worktree of it first on
the import path), the two sides alternating (this code first in even repeats, ``REV`` first in
odd ones: the machine's speed drifts within an hour), both sides' Python compiled to
bytecode before the first run. Last come each side's median, spread and
count, and the ratio against the target: half of the code the goal was set on, and half of
the 182 CPU-seconds it was measured at then.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from itertools import pairwise
from pathlib import Path
from unittest import mock

import attrs

import hpx_core
from hpx_core.config.validate import overrides
from hpx_core.pipeline import profile

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[")  # hpx's log, not the report
BEFORE_CPU_S = 182.0  # user + system CPU of the first KWS profile when the goal was set


@attrs.frozen
class Cpu:
    own: float
    children: float

    @classmethod
    def now(cls) -> Cpu:
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return cls(me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime)

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(self.own - other.own, self.children - other.children)


def ninja_edges(root: Path) -> list[tuple[str, float]]:
    """(output, seconds) of every edge Ninja ran under ``root``."""
    found = []
    for log in root.rglob(".ninja_log"):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines()[1:]:
            parts = line.split("\t")
            if len(parts) >= 4:
                found.append((parts[3], (int(parts[1]) - int(parts[0])) / 1000.0))
    return found


def kind_of(output: str) -> str:
    for suffix, kind in ((".cc.obj", "C++"), (".cpp.obj", "C++"), (".c.obj", "C"),
                         (".S.obj", "asm"), (".s.obj", "asm"), (".a", "archive"),
                         (".elf", "link")):
        if output.endswith(suffix):
            return kind
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=None, help="tflm backend (default: the engine's)")
    parser.add_argument("--before", metavar="REV", help="the code to compare with, run alike")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each side")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # one run, in this folder
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(attrs.asdict(one_run(args.one, args.backend, show=not args.quiet))))
        return
    root = Path(tempfile.mkdtemp(prefix="hpx-first-profile-"))
    print(f"{os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}; folders under {root}")
    sides = {"this code": None} | ({f"code at {args.before}": root / "code-before"}
                                   if args.before else {})
    runs: dict[str, list[Run]] = {side: [] for side in sides}
    try:
        if args.before:
            worktree("add", "--detach", str(root / "code-before"), args.before)
        for code in sides.values():  # both sides import from compiled bytecode, not one
            compile_bytecode(code or REPO)
        for repeat in range(args.repeats):
            order = list(sides) if repeat % 2 == 0 else list(sides)[::-1]
            for side in order:
                made = in_process_of_its_own(sides[side], root / f"run{repeat}-{side.split()[-1]}",
                                             args.backend, show=not runs[side])
                print(f"{side}: {made.cpu_s:.1f} CPU s, {made.wall_s:.1f} s wall "
                      f"(load {made.load_before:.1f})", flush=True)
                runs[side].append(made)
        summary(runs)
    finally:
        if (root / "code-before").exists():
            worktree("remove", "--force", str(root / "code-before"))
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


@attrs.frozen
class Run:
    """One first profile: its CPU (hpx and its children), wall time, count and code."""

    cpu_s: float
    wall_s: float
    load_before: float
    instructions: int
    code: str  # the folder hpx_core was imported from


def one_run(root: Path, backend: str | None, *, show: bool) -> Run:
    """The README's first profile in ``root`` (emptied caches of its own), its report printed
    when ``show``."""
    marks: list[tuple[str, Cpu, float]] = []

    def mark(stage: str) -> None:
        marks.append((stage, Cpu.now(), time.monotonic()))

    settings = overrides("benchmark", engine__type="tflm", target__board="qemu-m55",
                         output__dir=str(root / "results"), build__work_dir=str(root / "work"),
                         **({"engine__backend": backend} if backend else {}))
    load = os.getloadavg()[0]
    with mock.patch.dict(os.environ, HPX_CACHE_DIR=str(root / "hpx-cache"),
                         CCACHE_DIR=str(root / "ccache")):
        mark("start")
        outcome = profile(KWS, None, settings, on_stage=mark)
        mark("end")
    assert outcome.measurement is not None
    total, wall = marks[-1][1] - marks[0][1], marks[-1][2] - marks[0][2]
    if show:
        report(root, marks, load, total, wall)
    return Run(total.own + total.children, wall, load, outcome.measurement.whole_median,
               str(Path(hpx_core.__file__).parents[1]))


def in_process_of_its_own(code: Path | None, root: Path, backend: str | None, *,
                          show: bool) -> Run:
    """:func:`one_run` in a new process, with the code at ``code`` (a worktree) first on its
    import path, or this code."""
    env = dict(os.environ)
    if code is not None:
        paths = [code, *sorted((code / "plugins").glob("hpx_*")),
                 code / "examples/engines/kernelbench"]
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
    command = [sys.executable, __file__, "--one", str(root),
               *(["--backend", backend] if backend else []), *([] if show else ["--quiet"])]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the run in {root} failed:\n{done.stderr[-3000:]}")
    *lines, last = done.stdout.splitlines()
    print("\n".join(line for line in lines if not LOG_LINE.match(line)), flush=True)
    made = Run(**json.loads(last))
    expected = code if code is not None else REPO
    if Path(made.code).resolve() != expected.resolve():
        raise SystemExit(f"the run meant for {expected} imported hpx_core from {made.code}")
    return made


def compile_bytecode(code: Path) -> None:
    """The Python of ``code`` compiled to bytecode: a fresh worktree has none, and would pay
    for it inside its first timed run."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "hpx_core"),
                    str(code / "plugins"), str(code / "examples/engines")], check=True,
                   capture_output=True)


def worktree(*args: str) -> None:
    subprocess.run(["git", "-C", str(REPO), "worktree", *args], check=True,
                   capture_output=True)


def summary(runs: dict[str, list[Run]]) -> None:
    """Each side's median and spread, their counts, and the ratios against the targets."""
    print("\n| code | runs | median CPU s | spread | median wall s | KWS instructions |")
    print("|---|---:|---:|---:|---:|---:|")
    medians = {}
    for side, made in runs.items():
        cpu = sorted(r.cpu_s for r in made)
        medians[side] = statistics.median(cpu)
        counts = sorted({f"{r.instructions:,}" for r in made})
        print(f"| {side} | {len(made)} | {medians[side]:.1f} | {cpu[0]:.1f}-{cpu[-1]:.1f} | "
              f"{statistics.median(r.wall_s for r in made):.1f} | {' / '.join(counts)} |")
    ours = medians["this code"]
    print(f"\ntarget: at most {BEFORE_CPU_S / 2:.0f} CPU s (half of the {BEFORE_CPU_S:.0f} "
          f"measured when the goal was set); this code's median is {ours / BEFORE_CPU_S:.2f} "
          f"of {BEFORE_CPU_S:.0f}")
    for side, median in medians.items():
        if side != "this code":
            print(f"against the {side} in the same runs: {ours / median:.2f} of its CPU "
                  f"(target at most 0.50)")


def report(root: Path, marks: list[tuple[str, Cpu, float]], load: float, total: Cpu,
           wall: float) -> None:
    print("| stage | wall s | hpx CPU s | child processes CPU s |")
    print("|---|---:|---:|---:|")
    for (stage, cpu, at), (_, after, then) in pairwise(marks):
        spent = after - cpu
        print(f"| {stage} | {then - at:.1f} | {spent.own:.1f} | {spent.children:.1f} |")
    edges = ninja_edges(root / "work")  # the app's build (the library's scratch is removed)
    by_kind: dict[str, float] = defaultdict(float)
    for output, seconds in edges:
        by_kind[kind_of(output)] += seconds
    print("\n| the app's Ninja edges by kind | seconds |")
    print("|---|---:|")
    for kind, seconds in sorted(by_kind.items(), key=lambda item: -item[1]):
        print(f"| {kind} | {seconds:.1f} |")
    print("\n| most expensive units | seconds |")
    print("|---|---:|")
    for output, seconds in sorted(edges, key=lambda e: -e[1])[:10]:
        print(f"| {output.split('/')[-1]} | {seconds:.1f} |")
    used = total.own + total.children
    print(f"\nwhole run: {used:.1f} CPU s (hpx {total.own:.1f}, child processes "
          f"{total.children:.1f}), {wall:.1f} s wall, {len(edges)} app Ninja edges "
          f"({sum(e[1] for e in edges):.1f} s); load {load:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

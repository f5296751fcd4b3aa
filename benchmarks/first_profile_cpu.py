"""Where the CPU of a first profile goes: the README's KWS profile on an empty cache.

    python benchmarks/first_profile_cpu.py [--backend reference] [--keep]

Runs ``hpx profile kws_ref_model.tflite --engine tflm --board qemu-m55`` in-process, with an
empty hpx cache and an empty compiler cache of its own (the pinned sources are fetched into
it, as a new user's first run does; the user's caches are never touched). At every stage
boundary it reads the CPU this process used and the CPU its finished child processes used
(compilers, CMake, Ninja, git, QEMU), and prints:

- user + system CPU per stage, this process and its children apart;
- the compile steps Ninja ran in the app's build folder (its ``.ninja_log``), by file kind,
  with the ten most expensive units (the engine library's units are built in a scratch folder
  that is removed: their share is the firmware generation stage's children);
- the whole run's CPU, wall time and the load average, against the issue's target (half of
  the 182 CPU-seconds measured before).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from collections import defaultdict
from itertools import pairwise
from pathlib import Path
from unittest import mock

import attrs

from hpx_core.config.validate import overrides
from hpx_core.pipeline import profile

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
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
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hpx-first-profile-"))
    marks: list[tuple[str, Cpu, float]] = []

    def mark(stage: str) -> None:
        marks.append((stage, Cpu.now(), time.monotonic()))

    settings = overrides("benchmark", engine__type="tflm", target__board="qemu-m55",
                         output__dir=str(root / "results"), build__work_dir=str(root / "work"),
                         **({"engine__backend": args.backend} if args.backend else {}))
    load = os.getloadavg()[0]
    try:
        with mock.patch.dict(os.environ, HPX_CACHE_DIR=str(root / "hpx-cache"),
                             CCACHE_DIR=str(root / "ccache")):
            mark("start")
            outcome = profile(KWS, None, settings, on_stage=mark)
            mark("end")
        report(root, marks, load)
        assert outcome.measurement is not None
        print(f"KWS whole inference: {outcome.measurement.whole_median:,} instructions")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def report(root: Path, marks: list[tuple[str, Cpu, float]], load: float) -> None:
    print("| stage | wall s | hpx CPU s | child processes CPU s |")
    print("|---|---:|---:|---:|")
    for (stage, cpu, at), (_, after, then) in pairwise(marks):
        spent = after - cpu
        print(f"| {stage} | {then - at:.1f} | {spent.own:.1f} | {spent.children:.1f} |")
    total = marks[-1][1] - marks[0][1]
    wall = marks[-1][2] - marks[0][2]
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
    print(f"target: at most {BEFORE_CPU_S / 2:.0f} CPU s (half of {BEFORE_CPU_S:.0f}); "
          f"this run {used / BEFORE_CPU_S:.2f} of it")


if __name__ == "__main__":
    main()

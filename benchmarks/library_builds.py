"""What a user waits for engine libraries: compiler cache, operator sets, boards, a moved cache.

    python benchmarks/library_builds.py [--only ccache,executorch,boards,moved] [--jobs 2]

Every section works in a private hpx cache (``HPX_CACHE_DIR`` under a temporary folder; sources
come from git as a user's would) and a private ccache folder, so nothing shared is touched, and
prints its figures and its ratio, all measured in this one run:

- ``ccache``: the first profile of KWS (tflm, ``--backend``: reference by default, qemu-m55)
  with an empty hpx cache, its library built through an empty compiler cache (filling it), then
  through the warm one.
- ``plain``: the same first profile without the compiler cache; the ratio is the warm library
  build of ``ccache`` to this one (last, being the longest: ``ccache`` must run before it).
- ``executorch``: the first ExecuTorch program (tier1, portable operators clamp, leaky_relu,
  sub) builds the whole runtime, the second (tier1mean: mean) only its portable operators; the
  ratio is the second's library build to the first's, both without the compiler cache.
- ``boards``: one engine (kernelbench cmsis_nn) on qemu-m4, then apollo4p_evb (same CPU flags):
  the libraries the second compiles (0 expected).
- ``moved``: the hpx cache of the ``ccache`` section moved to another folder, KWS profiled
  again, whole run on QEMU: the library compile units (0 expected) and the instruction count.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hpx_core.config.validate import overrides
from hpx_core.contract import LibraryUse
from hpx_core.pipeline import ProfileOutcome, profile

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
TIER1 = REPO / "tests/fixtures/executorch_tier1"
KERNELS = REPO / "examples/engines/kernelbench/kernels.yaml"
BUILD = "build"
SECTIONS = ("ccache", "executorch", "boards", "moved", "plain")


@contextmanager
def environment(**values: str | None) -> Iterator[None]:
    """``os.environ`` with ``values`` set (None: removed) for the block."""
    saved = {k: os.environ.get(k) for k in values}
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run(model: Path, engine: str, backend: str, board: str, work: Path,
        until: str | None = BUILD) -> ProfileOutcome:
    settings = overrides("benchmark", engine__type=engine, engine__backend=backend,
                         target__board=board, output__dir=str(work / "results"))
    return profile(model, None, settings, until=until)


def libraries(outcome: ProfileOutcome) -> list[LibraryUse]:
    assert outcome.contribution is not None
    return list(outcome.contribution.libraries)


def describe(uses: list[LibraryUse]) -> str:
    return "; ".join(
        f"{u.name}: {'built' if u.built else 'cached'} {u.seconds:.1f} s, {u.compiled} units"
        + (f", ccache {u.compiler_cache['hits']} hits/{u.compiler_cache['misses']} misses"
           if u.compiler_cache else "")
        for u in uses)


def built_seconds(uses: list[LibraryUse]) -> float:
    return sum(u.seconds for u in uses if u.built)


def first_kws_profile(root: Path, label: str, launcher: str | None, backend: str) -> float:
    """KWS's first profile in an empty hpx cache at ``root/hpx-cache``: library seconds."""
    cache = root / "hpx-cache"
    shutil.rmtree(cache, ignore_errors=True)  # an empty hpx cache every time, same folder
    with environment(HPX_CACHE_DIR=str(cache), CCACHE_DIR=str(root / "ccache"),
                     HPX_COMPILER_CACHE=launcher):
        uses = libraries(run(KWS, "tflm", backend, "qemu-m55", root / "work"))
    print(f"  KWS first profile, {label}: {describe(uses)}", flush=True)
    return built_seconds(uses)


def ccache_section(root: Path, backend: str) -> tuple[Path, float]:
    """The hpx cache it leaves (for ``moved``) and the warm library build's seconds."""
    empty = first_kws_profile(root, "empty ccache", None, backend)
    warm = first_kws_profile(root, "warm ccache", None, backend)
    print(f"ccache: warm ccache / empty ccache: {warm / empty:.3f} ({warm:.1f} s / "
          f"{empty:.1f} s)", flush=True)
    return root / "hpx-cache", warm


def plain_section(root: Path, warm: float, backend: str) -> None:
    plain = first_kws_profile(root, "without ccache", "off", backend)
    print(f"ccache: library build with a warm ccache / without: {warm / plain:.3f} "
          f"({warm:.1f} s / {plain:.1f} s)", flush=True)


def executorch_section(root: Path) -> None:
    with environment(HPX_CACHE_DIR=str(root / "hpx-cache"), HPX_COMPILER_CACHE="off"):
        first = libraries(run(TIER1 / "tier1_arm.pte", "executorch", "arm", "qemu-m55",
                              root / "work"))
        print(f"  tier1 (clamp, leaky_relu, sub): {describe(first)}")
        second = libraries(run(TIER1 / "tier1mean_arm.pte", "executorch", "arm", "qemu-m55",
                               root / "work"))
        print(f"  tier1mean (mean): {describe(second)}")
    ratio = built_seconds(second) / built_seconds(first)
    print(f"executorch: second program's library build / whole runtime build: {ratio:.3f} "
          f"({built_seconds(second):.1f} s / {built_seconds(first):.1f} s)")


def boards_section(root: Path) -> None:
    with environment(HPX_CACHE_DIR=str(root / "hpx-cache"), CCACHE_DIR=str(root / "ccache")):
        m4 = libraries(run(KERNELS, "kernelbench", "cmsis_nn", "qemu-m4", root / "work"))
        print(f"  qemu-m4: {describe(m4)}")
        apollo = libraries(run(KERNELS, "kernelbench", "cmsis_nn", "apollo4p_evb",
                               root / "work"))
        print(f"  apollo4p_evb: {describe(apollo)}")
    print(f"boards: libraries apollo4p_evb built after qemu-m4: "
          f"{sum(u.built for u in apollo)} (same key: {m4[0].key == apollo[0].key})",
          flush=True)


def moved_section(root: Path, cache: Path | None, backend: str) -> None:
    if cache is None:  # run alone: make a cache to move
        cache = root / "hpx-cache"
        with environment(HPX_CACHE_DIR=str(cache), CCACHE_DIR=str(root / "ccache")):
            run(KWS, "tflm", backend, "qemu-m55", root / "work")
    moved = root / "moved" / "hpx-cache"
    moved.parent.mkdir(parents=True, exist_ok=True)
    cache.rename(moved)
    started = time.monotonic()
    with environment(HPX_CACHE_DIR=str(moved), HPX_COMPILER_CACHE="off"):
        outcome = run(KWS, "tflm", backend, "qemu-m55", root / "work-moved", until=None)
    uses = libraries(outcome)
    print(f"  KWS in the moved cache ({time.monotonic() - started:.1f} s): {describe(uses)}")
    if outcome.measurement is not None:
        print(f"  KWS {backend} on qemu-m55: {outcome.measurement.whole_median:,} "
              f"instructions")
    print(f"moved: library compile units after moving the cache: "
          f"{sum(u.compiled for u in uses)} (libraries built: {sum(u.built for u in uses)})",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--backend", default="reference", help="KWS's tflm backend")
    args = parser.parse_args()
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    root = Path(tempfile.mkdtemp(prefix="hpx-libraries-"))
    print(f"working in {root}")
    try:
        cache, warm = None, None
        if "boards" in chosen:
            boards_section(root / "boards")
        if "executorch" in chosen:
            executorch_section(root / "executorch")
        if "ccache" in chosen:
            cache, warm = ccache_section(root / "ccache", args.backend)
        if "moved" in chosen:
            moved_section(root / "moved", cache, args.backend)
        if "plain" in chosen and warm is not None:
            plain_section(root / "ccache", warm, args.backend)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

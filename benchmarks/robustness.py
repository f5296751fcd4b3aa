"""Trust drills on a real cache: concurrent runs, kills at every moment, damaged cache entries.

    python benchmarks/robustness.py [--kills 0.3,0.6,1,2,4,8] [--skip-library]
    python benchmarks/robustness.py --chatter 60
    python benchmarks/robustness.py --documents


Every scenario runs ``hpx profile`` of KWS (tflm reference, qemu-m55) as a user types it, in new
processes against the user's cache (``HPX_CACHE_DIR``, or hpx's default), and prints one line:
what was done, how many runs, and what came of them. A run must end in a complete bundle or in
one ``error:``/``hint:`` pair (never a traceback); no temporary bundle may be left once a later
run went into the same folder; a damaged cache entry must be repaired or refused naming its path.
The library scenarios rebuild ``tflm_reference`` through ccache (seconds when ccache is warm).

``--chatter SECONDS`` is the capture drill alone: firmware whose inference prints a text line
forever (tests/fixtures/firmware/chatter_engine.c, built for qemu-m55 by the real toolchain)
runs under ``hpx run --timeout SECONDS``; it prints hpx's own peak resident memory (its
``getrusage`` at exit, QEMU not counted), the bytes captured and how the run ended, which must
be one error/hint pair naming the timeout or the capture limit, with a failed bundle.

``--documents`` is the drills of ``benchmarks/hostile_documents.py`` alone: hostile calibration
files, edited estimates, ``hpx calibrate`` on impossible medians (the full run does them too).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hostile_documents import drills

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
HPX = [str(Path(sys.executable).with_name("hpx"))]  # the console script beside this Python
CHATTER = REPO / "tests/fixtures/firmware/chatter_engine.c"
# hpx's CLI in a Python that says its own peak resident memory as it exits (QEMU not counted)
PEAK_SAYING_HPX = [sys.executable, "-c", (
    "import atexit, resource, sys\n"
    "atexit.register(lambda: sys.stderr.write("
    "f'peak-rss-kib {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n'))\n"
    "from hpx_core.cli import main\n"
    "sys.argv[0] = 'hpx'\n"
    "sys.exit(main())\n")]


def cache_root() -> Path:
    from hpx_core.sources.cache import cache_root as root

    return root()


def command(out: Path, work: Path | None = None) -> list[str]:
    args = [*HPX, "profile", str(KWS), "--engine", "tflm", "--board", "qemu-m55",
            "--iterations", "2", "--output-dir", str(out)]
    if work is not None:
        config = out.parent / f"{out.name}.yaml"
        config.write_text(f"build: {{work_dir: {json.dumps(str(work))}}}\n")
        args += ["-c", str(config)]
    return args


def outcome(done: subprocess.CompletedProcess[str]) -> str:
    """``complete``, ``error`` (one error/hint pair) or ``BROKEN`` (a traceback, anything else)."""
    if "Traceback" in done.stderr:
        return "BROKEN"
    if done.returncode == 0:
        return "complete"
    lines = [line for line in done.stderr.splitlines() if line.startswith(("error:", "hint:"))]
    return "error" if len(lines) == 2 else "BROKEN"


def bundles(out: Path) -> tuple[list[Path], list[Path]]:
    """The bundles in ``out`` and the temporary ones left beside them."""
    if not out.is_dir():
        return [], []
    found = sorted(p for p in out.iterdir() if (p / "manifest.json").is_file())
    return found, sorted(out.glob(".tmp-bundle-*"))


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False)


def concurrent(scratch: Path, n: int = 4) -> str:
    out = scratch / "concurrent"
    procs = [subprocess.Popen(command(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(n)]
    results = [subprocess.CompletedProcess(p.args, p.wait(), *p.communicate()) for p in procs]
    kept, temps = bundles(out)
    counts = {json.loads((b / "summary.json").read_text())["measurement"]["whole_inference"]
              ["median"] for b in kept}
    verdicts = [outcome(r) for r in results]
    return (f"{n} concurrent profiles, one cache and folder: {verdicts.count('complete')} "
            f"complete, {len(kept)} bundles kept, {len(temps)} temporary left, whole counts "
            f"{sorted(counts)}")


def kills(scratch: Path, delays: list[float]) -> str:
    """Kill a run after each delay (a fresh work folder, so the kills land in every stage up to
    the run), then run again into the same folders: it must complete."""
    verdicts, temps_after = [], 0
    for i, delay in enumerate(delays):
        out, work = scratch / f"kill-{i}", scratch / f"kill-work-{i}"
        proc = subprocess.Popen(command(out, work), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        verdicts.append(outcome(run(command(out, work))))
        temps_after += len(bundles(out)[1])
    return (f"SIGKILL after {', '.join(f'{d:g}' for d in delays)} s, then the same run again: "
            f"{verdicts.count('complete')}/{len(delays)} complete, {verdicts.count('error')} "
            f"errors, {verdicts.count('BROKEN')} broken, {temps_after} temporary bundles left")


def damaged(scratch: Path, name: str, damage: Callable[[Path], None]) -> str:
    """Damage the cache as ``damage`` does, then profile: a result or one error naming a path."""
    root = cache_root()
    damage(root)
    out = scratch / f"damaged-{name}"
    done = run(command(out))
    verdict = outcome(done)
    said = next((line for line in done.stderr.splitlines() if line.startswith("error:")), "")
    kept = bundles(out)[0]
    whole = (json.loads((kept[0] / "summary.json").read_text())["measurement"]
             ["whole_inference"]["median"] if kept and verdict == "complete" else None)
    counted = f", whole {whole:,}" if whole is not None else ""
    return f"{name}: {verdict}{counted}{(' (' + said + ')') if said else ''}"


def _library(root: Path) -> Path:
    found = sorted((root / "engines").glob("tflm_reference-*/"))
    if not found:
        raise SystemExit("no tflm_reference library in the cache: run the README's command first")
    return found[0]


def _kept(folder: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        for path in (root / folder).glob("*.json"):
            text = path.read_text()
            path.write_text(text.replace('"CONV_2D"', '"FAKE_OP"').replace('"blobs":["A',
                                                                            '"blobs":["B'))
    return edit


def _locks_as_a_file(root: Path) -> None:
    shutil.rmtree(root / "locks", ignore_errors=True)
    (root / "locks").write_text("not a folder")


def _restore_locks(root: Path) -> None:
    locks = root / "locks"
    if locks.is_file():
        locks.unlink()


def library_cases() -> dict[str, Callable[[Path], None]]:
    def archive(content: Callable[[bytes], bytes]) -> Callable[[Path], None]:
        def change(root: Path) -> None:
            for path in _library(root).rglob("*.a"):
                path.write_bytes(content(path.read_bytes()))
        return change

    return {
        "truncated library archive": archive(lambda b: b[: len(b) // 2]),
        "empty library archive": archive(lambda b: b""),
        "garbage library archive": archive(lambda b: os.urandom(len(b))),
        "deleted library manifest": lambda root: (_library(root) / "manifest.json").unlink(),
        "truncated library manifest": lambda root: (_library(root) / "manifest.json").write_text(
            (_library(root) / "manifest.json").read_text()[:40]),
        "stale temporary library build": lambda root: (
            root / "engines" / f".{_library(root).name}.tmp-build" / "obj").mkdir(parents=True),
    }


def chatter_project(scratch: Path) -> Path:
    """The talking firmware's project, rendered and built (``hpx run`` takes its folder)."""
    from hpx_core.boards import get_board
    from hpx_core.contract import FirmwareContribution
    from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project

    glue = FirmwareContribution(files={CHATTER.name: CHATTER.read_text("utf-8")},
                                sources=(CHATTER.name,))
    project = render_project(scratch / "chatter-work", get_board("qemu-m55"), glue,
                             HarnessSettings("chatter"))
    build_project(project, get_toolchain("arm-none-eabi-gcc"))
    return project.root


def chatter(scratch: Path, seconds: float) -> str:
    """Run the firmware that prints forever under ``hpx run --timeout``: hpx's peak memory,
    the bytes kept and how the run ended."""
    out = scratch / "chatter"
    done = run([*PEAK_SAYING_HPX, "run", str(chatter_project(scratch)), "--timeout",
                f"{seconds:g}", "--output-dir", str(out)])
    said = [line for line in done.stderr.splitlines() if line.startswith(("error:", "hint:"))]
    peak = next((int(line.split()[1]) for line in done.stderr.splitlines()
                 if line.startswith("peak-rss-kib ")), 0)
    kept, temps = bundles(out)
    captured = sum((b / "capture.bin").stat().st_size for b in kept
                   if (b / "capture.bin").is_file())
    status = [json.loads((b / "summary.json").read_text())["status"] for b in kept]
    return (f"firmware printing forever, hpx run --timeout {seconds:g}: {outcome(done)} "
            f"(exit {done.returncode}), hpx peak RSS {peak / 1024:.1f} MiB, capture kept "
            f"{captured:,} bytes, bundles {status}, {len(temps)} temporary left; "
            f"{' / '.join(said) or done.stderr.strip()[-300:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", default="0.3,0.6,1,1.5,2,3,4,6,8")
    parser.add_argument("--skip-library", action="store_true",
                        help="leave the engine library alone (each case rebuilds it)")
    parser.add_argument("--chatter", type=float, metavar="SECONDS",
                        help="only the capture drill: firmware printing forever this long")
    parser.add_argument("--documents", action="store_true",
                        help="only the hostile calibration and estimate documents")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hpx-robustness-"))
    if args.chatter is not None or args.documents:
        try:
            lines = [chatter(scratch, args.chatter)] if args.chatter is not None else []
            print("\n".join(lines + (drills(scratch) if args.documents else [])), flush=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return
    try:
        for line in drills(scratch):
            print(line, flush=True)
        print(concurrent(scratch), flush=True)
        print(kills(scratch, [float(d) for d in args.kills.split(",")]), flush=True)
        cases: dict[str, Callable[[Path], None]] = {
            "edited model analysis": _kept("model-analyses"),
            "edited random inputs": _kept("random-inputs"),
            "edited reference outputs": _kept("reference-outputs"),
            "locks replaced by a file": _locks_as_a_file,
        }
        if not args.skip_library:
            cases |= library_cases()
        for name, damage in cases.items():
            print(damaged(scratch, name, damage), flush=True)
            _restore_locks(cache_root())
    finally:
        _restore_locks(cache_root())
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()

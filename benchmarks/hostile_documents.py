"""Drills with the documents a user hands back to hpx: calibration files and edited estimates.

    python benchmarks/hostile_documents.py     (benchmarks/robustness.py runs these too)

Every case runs hpx as a user types it, in a new process against the user's cache, and prints
one line: the case and its outcome, ``error`` (one ``error:``/``hint:`` pair, then the error
line) or ``BROKEN`` (a traceback, a hang, anything else). The estimate cases profile KWS once
on qemu-m55 with ``--estimate-for apollo510_evb`` (the tflm library comes from the cache when
the README's command ran first), then edit the bundle and make its manifest agree, as someone
who can write a bundle can.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
HPX = [str(Path(sys.executable).with_name("hpx"))]
BOARD = "apollo510_evb"
SECONDS = 120  # a refusal is immediate; a case still running then hangs


def outcome(args: list[str], seconds: int = SECONDS) -> str:
    """``complete``, ``error: <the error line>`` or ``BROKEN (...)``."""
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=seconds,
                              check=False)
    except subprocess.TimeoutExpired:
        return f"BROKEN (still running after {seconds} s)"
    if "Traceback" in done.stderr:
        return "BROKEN (traceback: " + done.stderr.strip().splitlines()[-1] + ")"
    if done.returncode == 0:
        return "complete"
    lines = [line for line in done.stderr.splitlines() if line.startswith(("error:", "hint:"))]
    if len(lines) != 2:
        return f"BROKEN (exit {done.returncode}, {len(lines)} error/hint lines)"
    return lines[0][:150]


def _calibration(costs: object) -> str:
    """A calibration document whose costs are ``costs`` (a string is put in as JSON text)."""
    from hpx_insight.calibrate import SCHEMA_ID

    text = json.dumps({"schema": SCHEMA_ID, "model": "hpx-cycles 1", "board": BOARD,
                       "costs": "COSTS"})
    return text.replace('"COSTS"', costs if isinstance(costs, str) else json.dumps(costs))


def calibration_cases(folder: Path) -> dict[str, Path]:
    """Each hostile calibration file, written into ``folder``."""
    from hpx_insight.classes import CLASSES

    def costs(**change: float) -> str:
        return json.dumps(dict.fromkeys(CLASSES, 1.0) | change)  # NaN, Infinity as Python
                                                                  # writes them

    texts = {
        "costs a list": _calibration([1, 2]),
        "costs missing": _calibration("COSTS").replace(', "costs": COSTS', ""),
        "costs null": _calibration(None), "costs a string": _calibration('"fast"'),
        "a 400-digit cost": _calibration('{"load": 1' + "0" * 400 + "}"),
        "a 100k-deep array": _calibration("[" * 100_000 + "]" * 100_000),
        "NaN costs": _calibration(costs(load=math.nan)),
        "infinite costs": _calibration(costs(load=math.inf)),
        "negative costs": _calibration(costs(store=-3.0)),
        "1e300 costs": _calibration(costs(mac=1e300)),
    }
    paths = {}
    for name, text in texts.items():
        paths[name] = folder / f"{name.replace(' ', '-')}.json"
        paths[name].write_text(text)
    paths["a link to /dev/zero"] = folder / "zero.json"
    paths["a link to /dev/zero"].symlink_to("/dev/zero")
    paths["a FIFO"] = folder / "fifo.json"
    os.mkfifo(paths["a FIFO"])
    return paths


def _config(folder: Path, calibration: Path, estimate: bool = True) -> Path:
    config = folder / f"{calibration.stem}.yaml"
    estimate_for = f"  estimate_for: {BOARD}\n" if estimate else ""
    config.write_text(f"engine: {{type: tflm}}\ntarget: {{board: qemu-m55}}\n"
                      f"model: {{path: {json.dumps(str(KWS))}}}\n"
                      f"profiling:\n{estimate_for}  calibration: {json.dumps(str(calibration))}\n")
    return config


def calibrations(scratch: Path) -> list[str]:
    folder = scratch / "calibrations"
    folder.mkdir()
    lines = []
    for name, path in calibration_cases(folder).items():
        lines.append(f"calibration, {name}: "
                     f"{outcome([*HPX, 'config', 'validate', str(_config(folder, path))])}")
    sound = folder / "sound.json"
    sound.write_text(_calibration({"load": 1.0}))
    lines.append("calibration without --estimate-for: " + outcome(
        [*HPX, "config", "validate", str(_config(folder, sound, estimate=False))]))
    return lines


def _reseal(bundle: Path) -> None:
    files = {p.name: {"sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
                      "size": p.stat().st_size}
             for p in sorted(bundle.iterdir()) if p.name != "manifest.json"}
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"] = files
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2))


def _estimate_edit(cycles: str) -> Callable[[Path], None]:
    def edit(bundle: Path) -> None:
        path = bundle / "cycle_estimate.json"
        document = json.loads(path.read_text())
        text = json.dumps(document, indent=2)
        whole = f'"estimated_cycles": {json.dumps(document["whole"]["estimated_cycles"])}'
        path.write_text(text.replace(whole, f'"estimated_cycles": {cycles}'))
    return edit


def _negative_medians(bundle: Path) -> None:
    summary = json.loads((bundle / "summary.json").read_text())
    summary["identity"] |= {"board": BOARD, "counter_units": "cycles"}
    for layer in summary["measurement"]["layers"]:
        layer["median"], layer["samples"] = -layer["median"], [-s for s in layer["samples"]]
    (bundle / "summary.json").write_text(json.dumps(summary))


def estimates(scratch: Path) -> list[str]:
    base = scratch / "estimated"
    profiled = outcome([*HPX, "profile", str(KWS), "--engine", "tflm", "--board", "qemu-m55",
                        "--estimate-for", BOARD, "--iterations", "2", "--output-dir",
                        str(base)], seconds=3600)  # builds the library on a cold cache
    found = sorted(p for p in base.iterdir() if (p / "manifest.json").is_file()) if (
        base.is_dir()) else []
    if profiled != "complete" or not found:
        return [f"estimates: the estimated profile did not complete ({profiled})"]
    original, lines = found[0], []
    cases = {f"estimate of {c} cycles": _estimate_edit(c) for c in ("NaN", "Infinity", "-5.0",
                                                                     "1e300")}
    cases["estimate deleted with its manifest entry"] = lambda b: (
        b / "cycle_estimate.json").unlink()
    for name, edit in cases.items():
        bundle = Path(shutil.copytree(original, scratch / name.replace(" ", "-")))
        edit(bundle)
        _reseal(bundle)
        verdicts = {verb: outcome([*HPX, *argv]) for verb, argv in (
            ("verify", ["results", "verify", str(bundle)]),
            ("show", ["results", "show", str(bundle)]),
            ("compare", ["compare", str(original), str(bundle)]))}
        lines.append(f"{name}: " + "; ".join(f"{v} {o}" for v, o in verdicts.items()))
    measured = Path(shutil.copytree(original, scratch / "negative-medians"))
    _negative_medians(measured)
    _reseal(measured)
    written = scratch / "fitted" / "calibration.json"
    lines.append("hpx calibrate on negative measured medians: " + outcome(
        [*HPX, "calibrate", str(original), str(measured), "--output-dir", str(written.parent)])
        + f" ({'a file was written' if written.exists() else 'nothing written'})")
    return lines


def drills(scratch: Path) -> list[str]:
    return [*calibrations(scratch), *estimates(scratch)]


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="hpx-hostile-documents-"))
    try:
        for line in drills(scratch):
            print(line, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()

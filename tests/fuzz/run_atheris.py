"""Coverage-guided fuzzing (atheris, libFuzzer) of every target in ``fuzz_targets``.

Run: python tests/fuzz/run_atheris.py [TARGET ...] [--runs N] [--input-seconds S]
         [--target-seconds S]      (``nox -s fuzz`` runs every target, 1,000,000 inputs each)

Each target runs in a process of its own (libFuzzer owns the process): hpx_core is
instrumented for coverage, the target's seeds start the corpus, and libFuzzer stops after
``--runs`` inputs or ``--target-seconds``, whichever comes first. An input running longer than
``--input-seconds`` is a finding (libFuzzer's ``-timeout``: a timer signal checks the running
input, so a hang in pure Python is caught too), as is any exception but HpxError and any input
using more than 2 GB. Findings are written to tests/fixtures/fuzz/<target>/ (crash-*, timeout-*,
oom-*), where the default test session replays them; commit them with their fix.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

NAMES = ("tflite", "pte", "sidecar", "config", "config-yaml", "wire", "calibration",
         "estimate")  # fuzz_targets.TARGETS
_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_EXECS = re.compile(r"stat::number_of_executed_units:\s*(\d+)")


def fuzz_one(name: str, argv: list[str]) -> None:
    """In this process: instrument hpx_core and the ExecuTorch plugin (the .pte reader, the
    sidecar), then hand control to libFuzzer (never returns)."""
    import atheris

    # before anything imports them
    with atheris.instrument_imports(include=["hpx_core", "hpx_executorch"]):
        from fuzz_targets import TARGETS
    from hpx_core.errors import HpxError

    run = TARGETS[name].run

    def one_input(data: bytes) -> None:
        with contextlib.suppress(HpxError):
            run(data)

    atheris.Setup([sys.argv[0], *argv], one_input)
    atheris.Fuzz()


def run_target(name: str, runs: int, input_seconds: int, target_seconds: int) -> dict[str, str]:
    """Fuzz ``name`` in a child process; its executions, time and findings."""
    from fuzz_targets import REGRESSIONS, TARGETS

    target = TARGETS[name]
    findings = REGRESSIONS / name
    findings.mkdir(parents=True, exist_ok=True)
    before = set(findings.iterdir())
    with tempfile.TemporaryDirectory(prefix=f"hpx-fuzz-{name}-") as tmp:
        corpus, seeds = Path(tmp) / "corpus", Path(tmp) / "seeds"
        corpus.mkdir()
        seeds.mkdir()
        for i, seed in enumerate(target.seeds()):
            (seeds / f"seed-{i}").write_bytes(seed)
        for i, old in enumerate(sorted(before)):
            (seeds / f"regression-{i}").write_bytes(old.read_bytes())
        flags = [f"-runs={runs}", f"-timeout={input_seconds}",
                 f"-max_total_time={target_seconds}", f"-max_len={target.max_len}",
                 "-rss_limit_mb=2048", "-print_final_stats=1", "-print_pcs=0",
                 f"-artifact_prefix={findings}/", str(corpus), str(seeds)]  # fmt: skip
        started = time.monotonic()
        log = Path(tmp) / "log"
        with log.open("w") as out:
            child = subprocess.run(
                [sys.executable, __file__, "--child", name, *flags],
                stdout=out, stderr=subprocess.STDOUT, check=False,
            )  # fmt: skip
        seconds = time.monotonic() - started
        text = log.read_text(errors="replace")
    found = sorted(p.name for p in set(findings.iterdir()) - before)
    execs = _EXECS.findall(text) or [m[0] for m in _DONE.findall(text)] or ["?"]
    if child.returncode != 0 or found:
        tail = "\n".join(text.splitlines()[-40:])
        print(f"--- {name}: libFuzzer exited {child.returncode}; last lines:\n{tail}")
    return {"target": name, "executions": execs[-1], "seconds": f"{seconds:.0f}",
            "exit": str(child.returncode), "findings": ", ".join(found) or "none"}  # fmt: skip


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        fuzz_one(sys.argv[2], sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", default=list(NAMES), help="default: all")
    parser.add_argument("--runs", type=int, default=1_000_000, help="inputs per target")
    parser.add_argument("--input-seconds", type=int, default=10, help="per-input time limit")
    parser.add_argument("--target-seconds", type=int, default=3600, help="per-target limit")
    args = parser.parse_args()
    header = f"{'target':<12}{'executions':>12}{'seconds':>9}  findings"
    results = []
    for name in args.targets:
        results.append(run_target(name, args.runs, args.input_seconds, args.target_seconds))
        r = results[-1]
        print(f"{r['target']:<12}{r['executions']:>12}{r['seconds']:>9}  {r['findings']}",
              flush=True)
    print(f"\n{header}")
    for r in results:
        print(f"{r['target']:<12}{r['executions']:>12}{r['seconds']:>9}  {r['findings']}")
    return 1 if any(r["findings"] != "none" or r["exit"] != "0" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

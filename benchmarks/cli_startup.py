"""How long ``hpx --help`` takes to start, against Python alone and Python importing typer.

    python benchmarks/cli_startup.py [--repeats 9]

Each command runs in a new process; the table shows the median wall time and the median CPU
time (user + system, less sensitive to a busy machine), and the modules ``hpx --help`` imports.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HPX = str(Path(sys.executable).parent / "hpx")
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import typer'": [sys.executable, "-c", "import typer"],
    "hpx --help": [HPX, "--help"],
}


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv``."""
    before = os.times()
    started = time.monotonic()
    subprocess.run(argv, capture_output=True, check=True)
    wall = time.monotonic() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    print(f"{'command':<28} {'wall s':>8} {'cpu s':>8}")
    for label, argv in COMMANDS.items():
        runs = [timed(argv) for _ in range(args.repeats)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"{label:<28} {wall:>8.3f} {cpu:>8.3f}")
    code = "import sys, hpx_core.cli; print(len(sys.modules))"
    count = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()
    print(f"modules loaded by the CLI before a command runs: {count}")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()

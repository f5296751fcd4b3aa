"""What a board farm's place costs over a local run: the selftest on qemu-m55, N runs each.

    python benchmarks/farm_overhead.py [--runs N]

Starts a labgrid coordinator, an exporter and an sshd on loopback (the test lab of
tests/support/labgrid_lab.py), then times the same firmware run locally, on a held place
(copy the ELF, QEMU over ssh, stream back), and as one-shot place runs (reserve, acquire, log
in, run, release). Prints a markdown table of medians; everything started is stopped.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "support"))

from emulated_firmware import selftest_build  # noqa: E402
from labgrid_lab import Lab, SshServer, network_service  # noqa: E402

from hpx_core.boards import get_board  # noqa: E402
from hpx_core.config.schema import FarmSection  # noqa: E402
from hpx_core.farm.client import close_clients  # noqa: E402
from hpx_core.farm.runner import PlaceRunner  # noqa: E402
from hpx_core.run.qemu import QemuRunner  # noqa: E402


def timed(runs: int, work: Callable[[], object]) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    board = get_board("qemu-m55")
    elf = selftest_build("qemu-m55")[1].elf
    root = Path(tempfile.mkdtemp(prefix="hpx-farm-bench-"))
    ssh, lab = SshServer(root / "ssh"), Lab(root / "lab")
    try:
        ssh.start()
        lab.start()
        lab.start_exporter("lab1", network_service("qemu-a", ssh.port))
        lab.wait_for_resources("lab1", ["qemu-a"])
        lab.add_place("qemu-a", {"board": "qemu-m55"}, "lab1/qemu-a/NetworkService")
        farm = FarmSection(coordinator=lab.address, ssh_key=ssh.client_key)
        place = PlaceRunner(board, "qemu-a", farm, timeout=120.0, notify=lambda _: None)
        local = timed(args.runs, lambda: QemuRunner(board, 120.0).execute(elf))
        with place.hold():
            held = timed(args.runs, lambda: place.execute(elf))
        one_shot = timed(args.runs, lambda: place.execute(elf))
    finally:
        close_clients()
        lab.stop()
        ssh.stop()
    print(f"selftest on qemu-m55, {args.runs} runs each, {elf.stat().st_size:,} B ELF\n")
    print("| run | median s | min s | max s |")
    print("|---|---:|---:|---:|")
    for name, seconds in (("local QEMU", local), ("place, held", held),
                          ("place, one-shot (reserve, acquire, ssh login, release)", one_shot)):
        print(f"| {name} | {statistics.median(seconds):.2f} | {min(seconds):.2f} | "
              f"{max(seconds):.2f} |")


if __name__ == "__main__":
    main()

"""Config loading time for large and hostile files: what ``hpx profile -c FILE`` spends reading.

Run: python benchmarks/config_loading.py [--megabytes 20] [--skip-large]
Writes a config whose ``profiling.counters`` list is --megabytes long, one just under the size
cap and an alias bomb, and prints how long ``load_config`` took on each and how it ended.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from hpx_core.config import load_config
from hpx_core.errors import ConfigError

LINE = "    - COUNTER_NAME_THAT_IS_LONG\n"
HEADER = "profiling:\n  counters:\n"


def counters_file(folder: Path, name: str, size: int) -> Path:
    """A syntactically valid config of about ``size`` bytes: one long list of counters."""
    path = folder / name
    path.write_text(HEADER + LINE * max(1, (size - len(HEADER)) // len(LINE)), "utf-8")
    return path


def alias_bomb(folder: Path) -> Path:
    """Billion laughs inside ``engine.config``: 10^8 values once expanded."""
    items = ["&l0 lol"] + [f"&l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 9)]
    path = folder / "bomb.yaml"
    path.write_text(
        "engine:\n  config: {" + ", ".join(f"k{i}: {v}" for i, v in enumerate(items)) + "}\n"
    )
    return path


def timed(path: Path) -> None:
    started = time.perf_counter()
    try:
        load_config(path)
        outcome = "loaded"
    except ConfigError as error:
        outcome = f"ConfigError: {error.message.removeprefix(str(path)).strip(': ')}"
    seconds = time.perf_counter() - started
    size = path.stat().st_size
    print(f"{path.name:>16}  {size / 1e6:7.2f} MB  {seconds:8.3f} s  {outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--megabytes", type=float, default=20.0, help="size of the large file")
    parser.add_argument("--skip-large", action="store_true", help="only the small cases")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        timed(counters_file(folder, "typical.yaml", 2_000))
        timed(counters_file(folder, "under-cap.yaml", 250_000))
        timed(alias_bomb(folder))
        if not args.skip_large:
            timed(counters_file(folder, "large.yaml", int(args.megabytes * 1e6)))


if __name__ == "__main__":
    main()

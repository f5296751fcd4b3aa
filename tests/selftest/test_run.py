"""`hpx selftest` on both emulated boards: known counts, identical runs (real QEMU)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mock_atfe import make_mock_atfe, mock_atfe_missing

from hpx_core.boards import all_boards, get_board
from hpx_core.build import detect_toolchains
from hpx_core.errors import UsageError
from hpx_core.results import verify_bundle
from hpx_core.selftest.layers import calibration_layers, expected_whole
from hpx_core.selftest.run import run_selftest, within_tolerance


def test_tolerance_is_one_percent_or_two_instructions() -> None:
    assert within_tolerance(24, 22) and not within_tolerance(25, 22)
    assert within_tolerance(1_010_000, 1_000_000) and not within_tolerance(1_010_001, 1_000_000)


def test_expected_counts_come_from_the_loop_shapes() -> None:
    layers = calibration_layers(get_board("qemu-m4"))
    assert [layer.expected for layer in layers] == [
        22,
        2_002,
        150_002,
        200_002,
        300_002,
        24_000_002,
    ]
    assert expected_whole(layers) == sum(layer.expected for layer in layers) + 8
    assert "mve" in {layer.kind for layer in calibration_layers(get_board("qemu-m55"))}


def test_silicon_board_is_refused_before_building(tmp_path: Path) -> None:
    silicon = [b for b in all_boards().values() if b.qemu is None]
    if not silicon:
        pytest.skip("no silicon board defined")
    with pytest.raises(UsageError, match="runs on emulated boards") as caught:
        run_selftest(silicon[0].name, tmp_path / "w", tmp_path / "r")
    assert "qemu-m55" in caught.value.hint
    assert not (tmp_path / "w").exists()


@pytest.fixture
def toolchain_env(request: pytest.FixtureRequest, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> str:
    """The toolchain named by the parameter, usable here (ATfE: an ATfE-shaped install)."""
    name: str = request.param
    if any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "ninja")):
        pytest.skip("needs the Arm toolchain, QEMU and ninja (CI installs them)")
    if name == "atfe":
        if missing := mock_atfe_missing():
            pytest.skip(missing)
        monkeypatch.setenv("ATFE_ROOT", str(make_mock_atfe(tmp_path / "atfe")))
    found = detect_toolchains()[name]
    if not found.available:
        pytest.skip(f"{name}: {found.reason}")
    return name


@pytest.mark.emulated
@pytest.mark.parametrize("toolchain_env", ["arm-none-eabi-gcc", "clang", "atfe"],
                         indirect=True)
@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
def test_selftest_passes_and_repeats_exactly(board: str, toolchain_env: str,
                                             tmp_path: Path) -> None:
    report = run_selftest(board, tmp_path / "work", tmp_path / "results",
                          toolchain=toolchain_env)
    assert report.build.toolchain == toolchain_env
    assert report.passed, [(c.name, c.expected, c.measured) for c in report.checks]
    assert report.runs_identical and report.output_ok
    first, second = report.runs
    assert first.measurement.whole == second.measurement.whole
    assert [x.counts for x in first.measurement.layers] == [
        x.counts for x in second.measurement.layers
    ]
    for check in report.checks[:-1]:  # the layers: exact to one instruction
        assert check.worst_error <= 1, check
    summary = json.loads((first.bundle / "summary.json").read_text())
    assert summary["status"] == "complete"
    assert summary["identity"]["counter_units"] == "instructions (emulated)"
    verify_bundle(first.bundle)

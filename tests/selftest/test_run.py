"""`hpx selftest` on both emulated boards: known counts, identical runs (real QEMU)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mock_atfe import make_mock_atfe, mock_atfe_missing

from hpx_core.boards import all_boards, get_board
from hpx_core.errors import UsageError
from hpx_core.firmware import detect_toolchains
from hpx_core.results import verify_bundle
from hpx_core.selftest.layers import calibration_layers, expected_whole
from hpx_core.selftest.run import SelftestCheck, run_selftest


def test_a_check_passes_only_when_every_iteration_is_exact() -> None:
    assert SelftestCheck("tiny", "subs_bne", 22, (22, 22, 22)).passed
    assert not SelftestCheck("tiny", "subs_bne", 22, (22, 23, 22)).passed
    assert not SelftestCheck("tiny", "subs_bne", 22, ()).passed


def test_expected_counts_come_from_the_loop_shapes() -> None:
    layers = calibration_layers(get_board("qemu-m4"))
    assert [layer.expected for layer in layers] == [
        22,
        2_002,
        150_002,
        200_002,
        300_002,
        22,
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
def test_selftest_counts_every_loop_exactly_in_every_iteration(board: str, toolchain_env: str,
                                                               tmp_path: Path) -> None:
    report = run_selftest(board, tmp_path / "work", tmp_path / "results", iterations=5,
                          toolchain=toolchain_env)
    assert report.build.toolchain == toolchain_env
    assert report.passed, [(c.name, c.expected, c.measured) for c in report.checks]
    assert report.runs_identical and report.output_ok
    first, second = report.runs
    assert first.measurement.whole == second.measurement.whole
    assert [x.counts for x in first.measurement.layers] == [
        x.counts for x in second.measurement.layers
    ]
    counted = [c for c in report.checks if c.kind != "memory pass"]
    for check in counted:  # every layer and the whole inference, every iteration
        assert check.measured == (check.expected,) * 5, check
    stack = next(c for c in report.checks if c.kind == "memory pass")
    assert stack.measured == (stack.expected,)  # the known depth, to the byte
    cal = first.capture.first("CAL")
    assert cal is not None and cal.number("min") == cal.number("max")  # the pair never varies
    summary = json.loads((first.bundle / "summary.json").read_text())
    assert summary["status"] == "complete"
    assert summary["identity"]["counter_units"] == "instructions (emulated)"
    verify_bundle(first.bundle)

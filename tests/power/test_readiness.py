"""What energy needs, asked before anything is fetched (a silicon board with power GPIOs, the
driver, the instrument), and ``hpx doctor``'s row of power instruments."""

from __future__ import annotations

import sys

import attrs
import pytest
from fake_joulescope import DEVICE, FakeDriver, piecewise

from hpx_core.boards import get_board
from hpx_core.errors import PowerError, UsageError
from hpx_core.pipeline.doctor import run_doctor
from hpx_core.plugins import load_registry
from hpx_core.power.readiness import check_board, find_instrument

SIGNALS = piecewise(1_000_000, [(100, 0.001, 0)])


@pytest.mark.parametrize(("board", "pins"), [("apollo510_evb", (29, 36)),
                                             ("apollo330mP_evb", (0, 1)),
                                             ("apollo4p_evb", (22, 23))])
def test_the_evbs_name_the_sdks_power_monitor_pads(board: str, pins: tuple[int, int]) -> None:
    silicon = get_board(board).silicon
    assert silicon is not None and silicon.power_gpios == pins


def test_an_attached_instrument_is_the_one_a_silicon_board_uses() -> None:
    check_board(get_board("apollo510_evb"))
    assert find_instrument(None, FakeDriver(SIGNALS)) == DEVICE


def test_an_emulated_board_is_refused() -> None:
    with pytest.raises(UsageError) as refused:
        check_board(get_board("qemu-m55"))
    assert refused.value.message == "energy is measured on silicon boards; qemu-m55 is emulated"
    assert "--board apollo510_evb --power" in refused.value.hint


def test_a_board_without_power_gpios_is_refused() -> None:
    board = get_board("apollo4p_evb")
    assert board.silicon is not None
    bare = attrs.evolve(board, silicon=attrs.evolve(board.silicon, power_gpios=None))
    with pytest.raises(UsageError, match="apollo4p_evb has no power GPIOs hpx drives"):
        check_board(bare)
    # the Apollo3 Plus has the SDK's pads but no prebuilt HAL of the kind hpx drives them with
    with pytest.raises(UsageError, match="apollo3p_evb has no power GPIOs hpx drives"):
        check_board(get_board("apollo3p_evb"))


def test_no_instrument_and_no_driver_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(PowerError, match="0 Joulescopes are attached"):
        find_instrument(None, FakeDriver(SIGNALS, devices=()))
    monkeypatch.setitem(sys.modules, "pyjoulescope_driver", None)
    with pytest.raises(PowerError) as refused:
        find_instrument(None)
    assert refused.value.hint == 'install the extra: pip install "hpx-core[power]"'


def _power_row(**kwargs: object) -> tuple[bool, str, bool]:
    report = run_doctor(load_registry(no_plugins=True), toolchain="arm-none-eabi-gcc",
                        emulated=None, **kwargs)  # type: ignore[arg-type]
    (row,) = [c for c in report.checks if c.name == "power instruments"]
    return row.ok, row.detail, row.required


def test_doctor_lists_the_attached_instruments() -> None:
    assert _power_row(power=FakeDriver(SIGNALS)) == (True, DEVICE, False)
    assert _power_row(power=FakeDriver(SIGNALS, devices=())) == (
        False, "none attached (Joulescope by USB)", False)


def test_doctor_names_the_extra_without_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyjoulescope_driver", None)
    assert _power_row() == (False, 'driver not installed (energy: pip install '
                                   '"hpx-core[power]")', False)

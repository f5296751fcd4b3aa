"""A calibration file is read as untrusted: its kind, size, JSON and every cost are checked
before an estimate uses it, and each way it can be wrong is one usage error, never a
traceback or a nonsense estimate."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from emulated_firmware import require_tools
from hpx_insight.calibrate import MAX_COST, SCHEMA_ID, Row, fit_rows, load_calibration
from hpx_insight.classes import CLASSES

from hpx_core.cli import main
from hpx_core.errors import UsageError

BOARD = "apollo510_evb"
KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")


def _document(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {"schema": SCHEMA_ID, "model": "hpx-cycles 1", "board": BOARD,
                                "costs": dict.fromkeys(CLASSES, 1.5)}
    for key, value in changes.items():
        if value is ...:
            del document[key]
        else:
            document[key] = value
    return document


def _costs(**changes: Any) -> dict[str, Any]:
    return dict.fromkeys(CLASSES, 1.5) | changes


HOSTILE = {
    "costs a list": (json.dumps(_document(costs=[1, 2])), "is not of type 'object'"),
    "costs missing": (json.dumps(_document(costs=...)), "'costs' is a required property"),
    "costs null": (json.dumps(_document(costs=None)), "is not of type 'object'"),
    "costs a string": (json.dumps(_document(costs="fast")), "is not of type 'object'"),
    "a class missing": (json.dumps(_document(costs=dict.fromkeys(CLASSES[1:], 1.0))),
                        f"'{CLASSES[0]}' is a required property"),
    "an unknown class": (json.dumps(_document(costs=_costs(teleport=1.0))),
                         "'teleport' was unexpected"),
    "a 400-digit cost": (json.dumps(_document(costs=_costs(load=10**400))),
                         "a number of 401 digits is out of range"),
    "a deep array": ('{"schema": "x", "costs": ' + "[" * 100_000 + "]" * 100_000 + "}",
                     "nested too deeply"),
    "a NaN cost": (json.dumps(_document(costs=_costs(load=float("nan")))), "NaN"),
    "an infinite cost": (json.dumps(_document(costs=_costs(load=float("inf")))),
                         "Infinity is not a JSON number"),
    "a negative cost": (json.dumps(_document(costs=_costs(store=-2.0))),
                        "is less than the minimum of 0"),
    "an absurd cost": (json.dumps(_document(costs=_costs(mac=1e300))),
                       f"is greater than the maximum of {MAX_COST}"),
    "a cost past the float range": (json.dumps(_document(costs="COSTS")).replace(
        '"COSTS"', '{"load": 1e400}'), "too large"),
    "another schema": (json.dumps(_document(schema="hpx.other/1")), "is not an hpx calibration"),
    "another board": (json.dumps(_document(board="apollo4p_evb")), "calibrates apollo4p_evb"),
    "not JSON": ("{costs: 1}", "is not JSON"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_damaged_calibration_is_one_usage_error(case: str, tmp_path: Path) -> None:
    text, words = HOSTILE[case]
    path = tmp_path / "calibration.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as refused:
        load_calibration(path, BOARD)
    assert words in refused.value.message
    assert "hpx calibrate" in refused.value.hint or BOARD in refused.value.hint


def test_a_sound_calibration_gives_every_class_its_cost(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(_document(costs=_costs(load=2.0, vector_mac=0.5))))
    costs = load_calibration(path, BOARD)
    assert costs["load"] == 2.0 and costs["vector_mac"] == 0.5 and set(costs) == set(CLASSES)


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_what_is_not_a_calibration_file_is_refused_before_reading(kind: str,
                                                                  tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.write_bytes(b" " * (2 << 20))
    with pytest.raises(UsageError, match=r"is a FIFO|is a device|is over 1 MiB"):
        load_calibration(path, BOARD)


def _validate(tmp_path: Path, calibration: Path, estimate: bool = True) -> int:
    config = tmp_path / "hpx.yaml"
    estimate_for = f"  estimate_for: {BOARD}\n" if estimate else ""
    config.write_text(f"engine: {{type: tflm}}\ntarget: {{board: qemu-m55}}\n"
                      f"model: {{path: {json.dumps(str(KWS))}}}\n"
                      f"profiling:\n{estimate_for}  calibration: {json.dumps(str(calibration))}\n")
    return main(["config", "validate", str(config)])


def test_the_config_check_refuses_a_fifo_calibration_in_one_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    require_tools()
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    fifo = tmp_path / "calibration.json"
    os.mkfifo(fifo)
    assert _validate(tmp_path, fifo) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "is a FIFO, not a file" in err and "hint:" in err


def test_a_calibration_without_an_estimate_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(_document()))
    assert _validate(tmp_path, path, estimate=False) == 2
    err = capsys.readouterr().err
    assert "profiling.calibration corrects an estimate, and none is asked for" in err
    assert "--estimate-for" in err


def _row(model: str, layer: int, counts: dict[str, float], measured: float) -> Row:
    per_class = tuple(counts.get(k, 0.0) for k in CLASSES)
    return Row(model, layer, per_class, per_class, measured)


def test_a_fit_no_board_can_have_is_refused_not_written() -> None:
    # the second layer adds stores to the first's loads and is measured ten times faster:
    # the least-squares fit prices stores below nothing
    rows = [_row("a", 0, {"load": 100.0}, 1000.0), _row("a", 1, {"load": 100.0,
                                                                 "store": 100.0}, 100.0)]
    with pytest.raises(UsageError, match="the fit gives store instructions -9 cycles each"):
        fit_rows(BOARD, rows)
    with pytest.raises(UsageError, match="share no layer"):
        fit_rows(BOARD, [])


def test_a_consistent_fit_is_kept() -> None:
    rows = [_row("a", 0, {"load": 100.0}, 200.0), _row("b", 0, {"load": 50.0,
                                                                "store": 10.0}, 110.0)]
    fitted = fit_rows(BOARD, rows)
    assert fitted.costs["load"] == pytest.approx(2.0) and fitted.costs["store"] == (
        pytest.approx(1.0))
    assert all(0.0 <= cost <= MAX_COST for cost in fitted.costs.values())

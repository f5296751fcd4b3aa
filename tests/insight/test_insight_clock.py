"""The cycle estimate in a clock mode: `--estimate-for BOARD --clock hp` states the board's
high-performance clock in cycle_estimate.json and on the console; the emulated counts and the
estimated cycles stay what they are in the LP mode (only the milliseconds follow the clock).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulated_firmware import require_tools
from insight_flags import insight_line

from hpx_core import pipeline
from hpx_core.cli import main
from hpx_core.errors import ConfigError
from hpx_core.results.view import load_view

pytestmark = [pytest.mark.emulated, pytest.mark.usefixtures("loops_installed")]
KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")


def _profile(out: Path, *more: str) -> tuple[dict[str, object], str]:
    code = main(["profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                 "--iterations", "1", "--estimate-for", "apollo510_evb",
                 "--output-dir", str(out), *more])
    assert code == 0
    bundle = next(out.iterdir())
    return json.loads((bundle / "cycle_estimate.json").read_text()), str(bundle)


def test_the_hp_estimate_is_at_250_mhz(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    require_tools()
    lp, _ = _profile(tmp_path / "lp")
    capsys.readouterr()
    hp, bundle = _profile(tmp_path / "hp", "--clock", "hp")
    out = " ".join(capsys.readouterr().out.split())
    assert (lp["clock_hz"], lp["clock"]) == (96_000_000, "lp")
    assert (hp["clock_hz"], hp["clock"]) == (250_000_000, "hp")
    whole = hp["whole"]
    assert isinstance(whole, dict)
    assert whole["estimated_cycles"] == lp["whole"]["estimated_cycles"]  # type: ignore[index]
    assert whole["estimated_ms"] == pytest.approx(
        whole["estimated_cycles"] / 250e6 * 1000, abs=1e-4)  # rounded to 4 places
    assert f"{whole['estimated_ms']:.3f} ms at 250,000,000 Hz" in out
    view = load_view(Path(bundle))
    summary = json.loads((view.path / "summary.json").read_text())
    assert summary["instruction_profile"]["clock"] == "hp"
    assert summary["instruction_profile"]["clock_hz"] == 250_000_000


@pytest.mark.parametrize(("flags", "words"), [
    ({"clock": "hp"}, "board qemu-m55 has no 'hp' clock mode"),
    ({"clock": "hp", "estimate_for": "apollo3p_evb"}, "board apollo3p_evb has no 'hp'"),
])
def test_a_clock_the_board_lacks_is_refused_at_the_config(
        flags: dict[str, object], words: str, tmp_path: Path) -> None:
    stages: list[str] = []
    line = insight_line(**{"model": KWS, "engine": "loops", "board": "qemu-m55",
                          "output_dir": tmp_path, **flags})
    with pytest.raises(ConfigError) as refused:
        pipeline.profile(None, None, line.overrides(), on_stage=stages.append)
    assert words in refused.value.message and "(set by --clock)" in refused.value.message
    assert refused.value.hint
    assert set(stages) <= {"config"}  # refused while the config is read: nothing fetched

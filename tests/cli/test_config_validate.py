"""`hpx config validate` refuses what `hpx profile` would refuse before its first fetch, with the
same words, and writes nothing; what it cannot check without a fetch it says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hpx_core.cli import main

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
TIER1 = REPO / "tests/fixtures/executorch_tier1/tier1_arm.pte"
WriteYaml = Callable[..., Path]

REFUSED = {
    "unknown board": (f"model: {{path: {KWS}}}\nengine: {{type: tflm}}\n"
                      "target: {board: qemu-m5}\n", "target.board: unknown board 'qemu-m5'"),
    "missing model file": ("model: {path: missing.tflite}\nengine: {type: tflm}\n",
                           "model.path: model file not found"),
    "pte with tflm": (f"model: {{path: {TIER1}}}\nengine: {{type: tflm}}\n",
                      "engine 'tflm' reads tflite models, but tier1_arm.pte is a pte model"),
    "helia-rt on qemu": (f"model: {{path: {KWS}}}\nengine: {{type: helia-rt}}\n",
                         "helia-rt (backend helia) may not run on board 'qemu-m55'"),
    "executorch ns on qemu": (f"model: {{path: {TIER1}}}\nengine: {{type: executorch, "
                              "backend: ns}\ntarget: {board: qemu-m4}\n",
                              "executorch (backend ns) may not run on board 'qemu-m4'"),
    "PMU counters on qemu": (f"model: {{path: {KWS}}}\nengine: {{type: tflm}}\n"
                             "profiling: {counters: [INST_RETIRED]}\n",
                             "profiling.counters: qemu-m55 counts instructions under emulation"),
    "iterations beyond 32 bits": (f"model: {{path: {KWS}}}\nengine: {{type: tflm}}\n"
                                  f"profiling: {{iterations: {10**29}}}\n",
                                  "profiling.iterations: must be at most 4,294,967,295"),
}


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    return cache


@pytest.mark.parametrize("case", REFUSED, ids=str)
def test_validate_refuses_what_profile_refuses(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml, tmp_path: Path, case: str
) -> None:
    text, expected = REFUSED[case]
    path = write_yaml(text)
    code, out, err = _run(capsys, "config", "validate", path)
    assert code != 0 and expected in err and "valid" not in out, (out, err)
    assert "Traceback" not in err
    said = err.splitlines()[0]
    profiled, _, refused = _run(capsys, "profile", "-c", path)
    assert profiled == code and refused.splitlines()[0] == said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hpx.yaml"]  # no cache, work, output


def test_an_empty_file_is_refused(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml
) -> None:
    path = write_yaml("# nothing here yet\n")
    code, _, err = _run(capsys, "config", "validate", path)
    assert code == 2 and f"{path} sets nothing" in err and "hint: " in err


def test_a_valid_config_names_the_checks_made(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml, tmp_path: Path
) -> None:
    path = write_yaml(f"model: {{path: {TIER1}}}\nengine: {{type: executorch}}\n")
    code, out, _ = _run(capsys, "config", "validate", path)
    assert code == 0
    assert "valid (executorch, backend arm, board qemu-m55; checked: config, model analysis, " \
           "license check, counter plan, memory plan)" in out
    assert "not checked" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hpx.yaml"]


def test_a_config_left_for_the_model_argument_says_the_model_was_not_checked(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml
) -> None:
    path = write_yaml("engine: {type: tflm, backend: cmsis_nn}\n")
    code, out, _ = _run(capsys, "config", "validate", path)
    assert code == 0 and "valid (tflm, backend cmsis_nn" in out
    assert "not checked: the model (model.path is not set; hpx profile takes MODEL)" in out


def test_pmu_event_names_wait_for_the_sdk_without_a_fetch(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml, private_cache: Path
) -> None:
    path = write_yaml(f"model: {{path: {KWS}}}\nengine: {{type: tflm}}\n"
                      "target: {board: apollo510_evb}\nprofiling: {counters: [INST_RETIRED]}\n")
    code, out, _ = _run(capsys, "config", "validate", path)
    assert code == 0
    assert "not checked: profiling.counters against apollo510_evb's PMU event names" in out
    assert not private_cache.exists()  # nothing was fetched

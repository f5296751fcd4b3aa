"""``hpx validate`` end to end: the MLPerf Tiny KWS model (tflm, cmsis_nn) on the emulated
Cortex-M55 with the project's own 200 labelled espeak-ng samples, then the same samples
mis-scaled, then a run stopped halfway and resumed.

Needs the pinned engine sources (``nox -s e2e``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser import CHROMIUM, load_page, page_dom

from hpx_core import api
from hpx_core.cli import main
from hpx_core.config.command_line import CommandLine
from hpx_core.reading import load_model
from hpx_core.validation import device, run

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
DATA = REPO / "examples" / "datasets" / "kws" / "kws_espeak_200.npz"
KWS_ARGS = ["--engine", "tflm", "--backend", "cmsis_nn", "--board", "qemu-m55"]


def _validate(data: Path, out: Path, work: Path, capsys: pytest.CaptureFixture[str]
              ) -> tuple[Path, str]:
    assert main(["validate", str(KWS), *KWS_ARGS, "--data", str(data), "--output-dir", str(out),
                 "--work-dir", str(work)]) == 0
    said = capsys.readouterr().out
    (bundle,) = out.glob("*-validation")
    return bundle, said


def _document(bundle: Path) -> dict[str, Any]:
    return json.loads((bundle / "validation.json").read_text("utf-8"))  # type: ignore[no-any-return]


def _host_accuracy(features: np.ndarray, labels: np.ndarray) -> float:
    """Top-1 accuracy of the tflite-micro interpreter on the samples, quantized here."""
    from tflite_micro.python.tflite_micro import runtime

    interpreter = runtime.Interpreter.from_bytes(KWS.read_bytes())
    (tensor,) = load_model(KWS).inputs
    assert tensor.quantization is not None
    scale, zero = tensor.quantization.scales[0], tensor.quantization.zero_points[0]
    right = 0
    for sample, label in zip(features, labels, strict=True):
        q = np.clip(np.round(sample.astype(np.float64) / scale) + zero, -128, 127)
        interpreter.set_input(q.astype(np.int8).reshape(1, 49, 10, 1), 0)
        interpreter.invoke()
        right += int(np.argmax(interpreter.get_output(0)[0].astype(np.int32))) == int(label)
    return right / len(labels)


def test_kws_on_the_device_agrees_with_the_host_on_every_sample_and_scores_the_labels(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle, said = _validate(DATA, tmp_path / "good", tmp_path / "work", capsys)
    doc = _document(bundle)
    (output,) = doc["outputs"]
    assert doc["data"]["samples"] == 200 and doc["data"]["labelled"]
    assert output["samples"] == 200 and output["classes"] == 12
    assert output["top1_agreement"] == 1.0 and output["differing_elements"] == 0
    archive = np.load(DATA)
    expected = _host_accuracy(archive["features"], archive["labels"])
    assert expected > 0.5  # the synthetic speech is recognised well above chance (1 in 12)
    assert output["accuracy"]["device_top1"] == output["accuracy"]["host_top1"] == expected
    lines = (bundle / "samples.jsonl").read_text("utf-8").splitlines()
    assert len(lines) == 200 and json.loads(lines[0])["sample"] == 0
    assert doc["counted"]["units"] == "instructions" and doc["counted"]["whole_raw"]
    assert doc["speed"]["samples_per_second"] > 0
    assert "top-1 agreement with the host: 100.00%" in said
    assert main(["results", "verify", str(bundle)]) == 0
    page = tmp_path / "validation.html"
    assert main(["results", "show", str(bundle), "--html", str(page)]) == 0
    if CHROMIUM is not None:  # the page as a browser shows it: the table, the histogram
        console, variance = load_page(page, tmp_path)
        assert console == [] and variance > 0
        dom = page_dom(page, tmp_path)
        row = f"{100 * expected:.2f}% / {100 * expected:.2f}%"
        assert 'id="validation-metrics"' in dom and row in dom and "<svg" in dom


def test_mis_scaled_inputs_saturate_lose_accuracy_and_fail_the_policy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = np.load(DATA)
    scaled = tmp_path / "mis_scaled.npz"
    np.savez(scaled, features=archive["features"] * 4, labels=archive["labels"])
    good, _ = _validate(DATA, tmp_path / "good", tmp_path / "work", capsys)
    bad, said = _validate(scaled, tmp_path / "bad", tmp_path / "work", capsys)
    assert "of the values fell outside the input's range when quantized" in said
    good_top1 = _document(good)["outputs"][0]["accuracy"]["device_top1"]
    bad_doc = _document(bad)
    assert bad_doc["data"]["saturated"]["input_1"] > 0.01
    assert bad_doc["outputs"][0]["accuracy"]["device_top1"] < good_top1 - 0.2
    assert main(["compare", str(good), str(bad), "--policy", "default"]) == 1
    assert "device_top1" in capsys.readouterr().out
    assert main(["compare", str(good), str(good), "--policy", "default"]) == 0


def test_a_stopped_run_resumes_from_the_windows_it_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = api.registry()
    flags = CommandLine(model=KWS, engine="tflm", backend="cmsis_nn", board="qemu-m55",
                        data=DATA, output_dir=tmp_path / "out", work_dir=tmp_path / "work",
                        limit=120)
    found = device.find_window

    def small(elf: Path, sample_bytes: int) -> device.Window:  # 40 samples a window
        window = found(elf, sample_bytes)
        return device.Window(window.offset, device.HEADER.size + 40 * sample_bytes,
                             sample_bytes)

    monkeypatch.setattr(run, "find_window", small)
    calls = []
    real_run = run.run_window

    def stopping(*args: Any, **kwargs: Any) -> device.WindowRun:
        calls.append(args[4])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_run(*args, **kwargs)

    monkeypatch.setattr(run, "run_window", stopping)
    prepared = run.prepare(None, flags.overrides(), registry)
    with pytest.raises(KeyboardInterrupt):
        run.validate(prepared, registry)
    assert calls == [0, 40]
    monkeypatch.setattr(run, "run_window", real_run)
    resumed = run.validate(run.prepare(None, flags.overrides(), registry), registry)
    assert resumed.resumed == 40 and resumed.data.count == 120
    first = resumed.samples_file.read_text("utf-8")
    assert len(first.splitlines()) == 120
    again = run.validate(run.prepare(None, flags.overrides(), registry), registry)
    assert again.resumed == 120 and again.samples_file.read_text("utf-8") == first
    assert [s.document()["top1_agreement"] for s in again.scores] == [1.0]


TIER1 = REPO / "tests" / "fixtures" / "executorch_tier1"
TIER1MEAN_CONFIG = REPO / "configs" / "executorch" / "tier1mean_arm.yaml"


def test_an_executorch_program_validates_against_its_exporters_expected_outputs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = TIER1 / "tier1mean_arm.validation.npz"  # tools/export/executorch_tier1
    archive = np.load(data)
    wrong = dict(archive)
    wrong["expected"] = archive["expected"].copy()
    wrong["expected"][5, 0, 3, 0, 0] += 0.5  # one element of sample 5 the device cannot match
    altered = tmp_path / "altered.npz"
    np.savez(altered, **wrong)
    found = {}
    for name, given in (("exact", data), ("altered", altered)):
        out = tmp_path / name
        assert main(["validate", "-c", str(TIER1MEAN_CONFIG), "--data", str(given),
                     "--output-dir", str(out), "--work-dir", str(tmp_path / "work")]) == 0
        (bundle,) = out.glob("*-validation")
        found[name] = _document(bundle)
    said = capsys.readouterr().out
    assert "host reference: the data set's expected outputs" in said
    exact, altered_doc = found["exact"]["outputs"][0], found["altered"]["outputs"][0]
    assert exact["samples"] == 32 and exact["differing_elements"] == 0
    assert found["exact"]["data"]["samples"] == 32  # 64 KiB samples: three windows of the ELF
    assert altered_doc["differing_elements"] == 1 and altered_doc["differing_samples"] == 1
    assert altered_doc["worst"] == [{"sample": 5, "max_abs_diff": 0.5}]

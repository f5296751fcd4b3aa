"""heliaAOT compiles in hpx's process: its output goes to the run's log, and a refusal becomes
one line of cause with a hint that matches it (code generation only; nothing is executed)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hpx_heliaaot.compiler import AotModule, compile_model
from hpx_heliaaot.refusal import refusal
from legacy_models import toco_style, with_tensor_name

from hpx_core.errors import ModelError

from .conftest import MODELS

KWS = MODELS / "kws_ref_model.tflite"


def compile_into(model: Path, work: Path) -> AotModule:
    return compile_model(model, work / "aot-out", prefix="hpx", module_name="hpx_model",
                         platform="apollo510_evb", log=work / "run.log")


def test_a_compilation_prints_nothing_and_logs_what_the_compiler_said(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    module = compile_into(KWS, tmp_path)
    assert capfd.readouterr() == ("", "")
    assert len(module.operators) == 13 and (module.root / "CMakeLists.txt").is_file()
    log = (tmp_path / "run.log").read_text()
    assert log.startswith(f"--- heliaAOT {module.version} compiling {KWS}")
    assert "unresolved dynamic tensors" in log  # the compiler's own warning about KWS


def test_the_compilers_scratch_folders_are_removed_with_hpxs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system_temp = tmp_path / "tmp"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    compile_into(KWS, tmp_path / "work")
    assert list(system_temp.iterdir()) == []  # heliaAOT's own mkdtemp("helia-aot") included
    assert tempfile.tempdir == str(system_temp)
    assert [p.name for p in (tmp_path / "work" / "aot-out").iterdir()] == ["hpx_model"]


def test_an_unnamed_subgraph_is_one_line_naming_the_field_the_model_and_the_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    model = toco_style(KWS, tmp_path / "person_detect.tflite")
    with pytest.raises(ModelError) as caught:
        compile_into(model, tmp_path)
    assert capfd.readouterr() == ("", "")
    error, log = caught.value, tmp_path / "run.log"
    assert "\n" not in error.message and "\n" not in error.hint
    assert "cannot read person_detect.tflite: AirModel.name: Input should be a valid string" \
        in error.message
    assert "subgraphs[0].name of person_detect.tflite" in error.hint
    assert str(log) in error.hint and "operators" not in error.hint
    text = log.read_text()
    assert "Step failed" in text and "Traceback (most recent call last)" in text
    assert "1 validation error for AirModel" in text
    assert not (tmp_path / "aot-out" / "hpx_model").exists()


def test_a_tensor_name_that_is_not_utf8_names_that_field(tmp_path: Path) -> None:
    model = with_tensor_name(KWS, tmp_path / "kws.tflite", 1, b"bad\xff\xfename")
    with pytest.raises(ModelError) as caught:
        compile_into(model, tmp_path)
    assert "AirTensor.local_name" in caught.value.message
    assert "subgraphs[0].tensors[].name of kws.tflite" in caught.value.hint


def test_an_unknown_operator_points_at_the_supported_list(tmp_path: Path) -> None:
    error = refusal(ValueError("Operator 4 FOO is not registered in the parser"), "m.tflite",
                    "0.18.0", tmp_path / "run.log")
    assert error.message == ("heliaAOT 0.18.0 cannot compile m.tflite: Operator 4 FOO is not "
                             "registered in the parser")
    assert "supported list" in error.hint and str(tmp_path / "run.log") in error.hint


def test_any_other_failure_is_its_first_line_and_the_log(tmp_path: Path) -> None:
    error = refusal(RuntimeError("planner overflow\n  at arena 3\n"), "m.tflite", "0.18.0",
                    tmp_path / "run.log")
    assert error.message == "heliaAOT 0.18.0 cannot compile m.tflite: planner overflow"
    assert error.hint == f"heliaAOT's full output is in {tmp_path / 'run.log'}, with the traceback"


def test_the_static_arenas_reach_the_memory_section_as_the_compiler_planned_them(
        tmp_path: Path) -> None:
    from hpx_heliaaot.memory import static_arenas

    module = compile_into(KWS, tmp_path)
    figures = static_arenas(module.memory_plan)
    scratch = module.memory_plan["arenas"]["scratch"]
    assert figures.whole["scratch.planned"] == sum(a["used"] for a in scratch.values()) > 0
    assert not figures.layers

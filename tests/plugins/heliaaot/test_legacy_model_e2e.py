"""helia-aot on models from older converters, and on a broken one, through the real pipeline.

A TOCO-style model (subgraph 0 unnamed) builds for apollo510_evb from a corrected copy in the
work folder, the user's file untouched; a model heliaAOT refuses gives the real CLI's user one
line of cause and one of hint, and the compiler's whole output lands in the run's log.
Build-only: heliaAOT's code runs on Ambiq CPUs only.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from hpx_heliaaot.engine import AotFacts
from legacy_models import subgraph_name, toco_style, with_tensor_name
from profiles import BUILD_ONLY, profile_run

from hpx_core.models.tflite_fields import SUBGRAPH_NAME

from .conftest import MODELS

pytestmark = pytest.mark.e2e
KWS = MODELS / "kws_ref_model.tflite"
HPX = Path(sys.executable).with_name("hpx")


def test_an_unnamed_subgraph_builds_from_a_corrected_copy(tmp_path: Path) -> None:
    model = toco_style(KWS, tmp_path / "person_detect.tflite")
    before = hashlib.sha256(model.read_bytes()).digest()
    done = profile_run(model, "helia-aot", "apollo510_evb", tmp_path / "run", until=BUILD_ONLY)
    assert done.build is not None and done.build.elf.is_file()
    assert done.findings and all(f.passed for f in done.findings), done.findings
    assert done.model is not None and done.model.absent_fields == (SUBGRAPH_NAME,)
    copy = done.model_copy
    assert copy is not None and copy.supplied == (SUBGRAPH_NAME,)
    assert copy.path.parent.parent == done.build.elf.parents[1], "the copy is in the work folder"
    assert subgraph_name(copy.path) == b"main" and subgraph_name(model) is None
    assert hashlib.sha256(model.read_bytes()).digest() == before
    facts = done.contribution.facts if done.contribution else None
    assert isinstance(facts, AotFacts) and len(facts.operators) == 13


def test_a_refused_model_is_one_cause_and_one_hint_with_the_output_in_the_log(
    tmp_path: Path,
) -> None:
    model = with_tensor_name(KWS, tmp_path / "broken.tflite", 1, b"bad\xff\xfename")
    done = subprocess.run(
        [str(HPX), "profile", str(model), "--engine", "helia-aot", "--board", "apollo510_evb",
         "--output-dir", str(tmp_path / "results")],
        capture_output=True, text=True, cwd=tmp_path, timeout=900, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    cause, hint = done.stderr.splitlines()
    assert cause.startswith("error: heliaAOT ") and "cannot read broken.tflite" in cause
    assert "AirTensor.local_name" in cause
    (log,) = (tmp_path / "hpx-work").glob("broken-helia-aot-default-apollo510_evb-*/run.log")
    assert hint.startswith("hint: ") and hint.endswith(f"heliaAOT's full output is in {log}")
    assert "subgraphs[0].tensors[].name of broken.tflite" in hint
    text = log.read_text()
    assert "Step failed" in text and "Traceback (most recent call last)" in text
    assert "validation error for AirTensor" in text

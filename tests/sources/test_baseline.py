"""The shipped baseline loads, and malformed pins (tags, branches, .git URLs) are refused."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from hpx_core.errors import HpxError
from hpx_core.sources.baseline import BaselineError, load_baseline, parse_baseline

SHIPPED = Path(__file__).parents[2] / "hpx_core" / "data" / "baseline.toml"
DOCS_FLOORS = {"helia-rt": "1.16.0"}  # the product documentation's minimum versions


@pytest.fixture
def raw() -> dict[str, Any]:
    return tomllib.loads(SHIPPED.read_text())


def test_shipped_baseline_pins_every_repository_at_a_full_commit() -> None:
    baseline = load_baseline()
    assert baseline.repositories
    for pin in baseline.repositories.values():
        assert re.fullmatch(r"[0-9a-f]{40}", pin.commit), pin.name
        assert not pin.url.endswith(".git")
        assert pin.license
        for sub in pin.submodules:
            assert re.fullmatch(r"[0-9a-f]{40}", sub.commit)


def test_floors_and_engines_are_declared() -> None:
    baseline = load_baseline()
    for name, floor in DOCS_FLOORS.items():
        assert baseline.pin(name).min_version == floor
    assert baseline.packages["helia-aot"].min_version == "0.18.0"
    assert set(baseline.engines) == {"tflm", "helia-rt", "helia-aot", "executorch"}
    assert set(baseline.engines["tflm"].backends) == {"reference", "cmsis_nn"}
    assert set(baseline.engines["executorch"].backends) == {"arm", "ns"}
    assert [p.name for p in baseline.pins_for_board("apollo")] == ["nsx-ambiq-sdk"]


def test_pins_follow_the_backend() -> None:
    baseline = load_baseline()
    reference = {p.name for p in baseline.pins_for("tflm", "reference")}
    cmsis = {p.name for p in baseline.pins_for("tflm", "cmsis_nn")}
    assert cmsis - reference == {"CMSIS-NN"}
    assert "CMSIS_6" in reference  # common to every Cortex-M build
    arm = {p.name for p in baseline.pins_for("executorch", "arm")}
    ns = {p.name for p in baseline.pins_for("executorch", "ns")}
    assert "ns-cmsis-nn" in ns and "ns-cmsis-nn" not in arm
    every = {p.name for p in baseline.pins_for("executorch")}
    assert every == arm | ns


def test_executorch_submodule_pins() -> None:
    pin = load_baseline().pin("nsx-executorch")
    subs = {s.path: s for s in pin.submodules}
    assert subs["external/executorch"].commit == "3a97429b0ce0c192861fc3e3729fb81432fd22cf"
    assert pin.commit == "62b22f96dc49e2c28eb20aee0f15ebb7ad1c1d59"


@pytest.mark.parametrize("ref", ["v25.9.23", "main", "helia-rt-v1.17.0", "62b22f96", "HEAD"])
def test_tags_branches_and_short_commits_are_refused(raw: dict[str, Any], ref: str) -> None:
    bad = copy.deepcopy(raw)
    bad["repositories"]["flatbuffers"]["commit"] = ref
    with pytest.raises(HpxError, match="not a full 40-hex commit") as caught:
        parse_baseline(bad)
    assert "tag" in caught.value.hint


def test_submodule_refs_are_refused_too(raw: dict[str, Any]) -> None:
    bad = copy.deepcopy(raw)
    bad["repositories"]["nsx-executorch"]["submodules"][0]["commit"] = "v1.3.0"
    with pytest.raises(BaselineError, match="submodules\\[0\\]"):
        parse_baseline(bad)


def test_git_suffix_is_refused(raw: dict[str, Any]) -> None:
    bad = copy.deepcopy(raw)
    bad["repositories"]["ruy"]["url"] += ".git"
    with pytest.raises(BaselineError, match="must not end in"):
        parse_baseline(bad)


def test_unknown_names_and_order_are_refused(raw: dict[str, Any]) -> None:
    bad = copy.deepcopy(raw)
    bad["engines"]["tflm"]["repositories"].append("nope")
    with pytest.raises(BaselineError, match="unknown repository 'nope'"):
        parse_baseline(bad)
    bad = copy.deepcopy(raw)
    bad["repositories"]["nsx-executorch"]["submodules"].reverse()
    with pytest.raises(BaselineError, match="before its parent"):
        parse_baseline(bad)
    bad = copy.deepcopy(raw)
    bad["repositories"]["ruy"]["runs_on"] = "anywhere"
    with pytest.raises(BaselineError, match="runs_on"):
        parse_baseline(bad)


def test_unknown_engine_and_backend_name_the_known_ones() -> None:
    baseline = load_baseline()
    with pytest.raises(HpxError, match="'tvm'") as caught:
        baseline.pins_for("tvm")
    assert "executorch" in caught.value.hint
    with pytest.raises(HpxError, match="no backend 'helia'") as caught:
        baseline.pins_for("tflm", "helia")
    assert "cmsis_nn" in caught.value.hint

"""Pins: the core's shared ones and each engine's own load, merge into one catalog that says
who declared what, and malformed pins (tags, branches, .git URLs) are refused."""

from __future__ import annotations

import copy
import re
import tomllib
from importlib import resources
from typing import Any

import attrs
import pytest

from hpx_core.errors import HpxError
from hpx_core.plugins import load_registry
from hpx_core.sources.pins import PinsError, core_pins, load_pins, merge_pins, parse_pins

DOCS_FLOORS = {"helia-rt": "1.16.0"}  # the product documentation's minimum versions


def _raw(package: str) -> dict[str, Any]:
    text = resources.files(package).joinpath("pins.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _engine_pins(raw: dict[str, Any]) -> None:
    parse_pins(raw, source="test", declared_by="test", shared=core_pins())


@pytest.fixture
def catalog() -> Any:
    return load_registry().catalog


def test_every_pin_is_a_full_commit_with_a_bare_url_and_a_license(catalog: Any) -> None:
    assert catalog.repositories
    for pin in catalog.repositories.values():
        assert re.fullmatch(r"[0-9a-f]{40}", pin.commit), pin.name
        assert not pin.url.endswith(".git")
        assert pin.license
        for sub in pin.submodules:
            assert re.fullmatch(r"[0-9a-f]{40}", sub.commit)


def test_the_core_keeps_only_what_engines_share() -> None:
    core = core_pins()
    assert set(core.repositories) == {"CMSIS_6", "CMSIS-NN", "ns-cmsis-nn", "nsx-ambiq-sdk"}
    assert not core.engines and not core.packages
    assert [p.name for p in core.pins_for_board("apollo")] == ["nsx-ambiq-sdk"]


def test_each_engine_declares_its_own(catalog: Any) -> None:
    owners = catalog.declared_by
    assert owners["tflite-micro"] == owners["tflm"] == "hpx-tflm"
    assert owners["helia-rt"] == "hpx-heliart" and owners["helia-aot"] == "hpx-heliaaot"
    assert owners["nsx-executorch"] == "hpx-executorch" and owners["CMSIS-NN"] == "hpx-core"
    for name, floor in DOCS_FLOORS.items():
        assert catalog.pin(name).min_version == floor
    assert catalog.package("helia-aot").min_version == "0.18.0"
    assert {"tflm", "helia-rt", "helia-aot", "executorch"} <= set(catalog.engines)
    assert set(catalog.engines["tflm"].backends) == {"reference", "cmsis_nn"}
    assert set(catalog.engines["executorch"].backends) == {"arm", "ns"}


def test_pins_follow_the_backend(catalog: Any) -> None:
    reference = {p.name for p in catalog.pins_for("tflm", "reference")}
    cmsis = {p.name for p in catalog.pins_for("tflm", "cmsis_nn")}
    assert cmsis - reference == {"CMSIS-NN"}
    assert "CMSIS_6" in reference  # the Cortex-M core headers, which tflm declares
    arm = {p.name for p in catalog.pins_for("executorch", "arm")}
    ns = {p.name for p in catalog.pins_for("executorch", "ns")}
    assert "ns-cmsis-nn" in ns and "ns-cmsis-nn" not in arm
    assert {p.name for p in catalog.pins_for("executorch")} == arm | ns


def test_executorch_submodule_pins() -> None:
    pin = load_pins("hpx_executorch").pin("nsx-executorch")
    subs = {s.path: s for s in pin.submodules}
    assert subs["external/executorch"].commit == "3a97429b0ce0c192861fc3e3729fb81432fd22cf"
    assert pin.commit == "62b22f96dc49e2c28eb20aee0f15ebb7ad1c1d59"


@pytest.mark.parametrize("ref", ["v25.9.23", "main", "helia-rt-v1.17.0", "62b22f96", "HEAD"])
def test_tags_branches_and_short_commits_are_refused(ref: str) -> None:
    bad = _raw("hpx_tflm")
    bad["repositories"]["flatbuffers"]["commit"] = ref
    with pytest.raises(HpxError, match="not a full 40-hex commit") as caught:
        _engine_pins(bad)
    assert "tag" in caught.value.hint


def test_submodule_refs_are_refused_too() -> None:
    bad = _raw("hpx_executorch")
    bad["repositories"]["nsx-executorch"]["submodules"][0]["commit"] = "v1.3.0"
    with pytest.raises(PinsError, match="submodules\\[0\\]"):
        _engine_pins(bad)


def test_git_suffix_is_refused() -> None:
    bad = _raw("hpx_tflm")
    bad["repositories"]["ruy"]["url"] += ".git"
    with pytest.raises(PinsError, match="must not end in"):
        _engine_pins(bad)


def test_unknown_names_order_and_restrictions_are_refused() -> None:
    raw = _raw("hpx_tflm")
    bad = copy.deepcopy(raw)
    bad["engines"]["tflm"]["repositories"].append("nope")
    with pytest.raises(PinsError, match="unknown repository 'nope'"):
        _engine_pins(bad)
    bad = _raw("hpx_executorch")
    bad["repositories"]["nsx-executorch"]["submodules"].reverse()
    with pytest.raises(PinsError, match="before its parent"):
        _engine_pins(bad)
    for runs_on in ("anywhere", "ambiq-cpu", "cpu-vendor:", "board-family:Apollo EVB"):
        bad = copy.deepcopy(raw)
        bad["repositories"]["ruy"]["runs_on"] = runs_on
        with pytest.raises(PinsError, match="runs_on"):
            _engine_pins(bad)


def test_a_shared_name_redeclared_differently_is_a_conflict() -> None:
    raw = _raw("hpx_tflm")
    mine = copy.deepcopy(raw)
    mine["repositories"]["CMSIS-NN"] = dict(raw["repositories"]["ruy"])  # another commit
    with pytest.raises(PinsError, match="CMSIS-NN"):
        _engine_pins(mine)
    tflm = load_pins("hpx_tflm")
    other = attrs.evolve(tflm, declared_by=dict.fromkeys(tflm.declared_by, "hpx-other"),
                         repositories={**tflm.repositories, "ruy": attrs.evolve(
                             tflm.pin("ruy"), commit="0" * 40)})
    with pytest.raises(PinsError, match="hpx-other declares repository 'ruy' differently"):
        merge_pins(core_pins(), tflm, other)
    assert merge_pins(core_pins(), tflm, tflm).pin("ruy") == tflm.pin("ruy")  # same: fine


def test_unknown_engine_and_backend_name_the_known_ones(catalog: Any) -> None:
    with pytest.raises(HpxError, match="'tvm'") as caught:
        catalog.pins_for("tvm")
    assert "executorch" in caught.value.hint
    with pytest.raises(HpxError, match="no backend 'helia'") as caught:
        catalog.pins_for("tflm", "helia")
    assert "cmsis_nn" in caught.value.hint

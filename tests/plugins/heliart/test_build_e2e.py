"""helia-rt builds the four MLPerf Tiny models for Apollo boards (build-only: Ambiq CPUs only).

All three backends for apollo510_evb (Cortex-M55) and the reference backend for apollo4p_evb
(Cortex-M4F): each firmware links, passes the placement check against the board's memory map,
and its symbols prove which backend linked (ns-cmsis-nn entry points for helia, Arm CMSIS-NN
without them for cmsis_nn, no kernel library at all for reference).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hpx_heliart.symbols import kernels, ns_entry_points
from legacy_models import toco_style
from profiles import BUILD_ONLY, profile_run

from hpx_core.contract import LibraryUse
from hpx_core.firmware import symbol_inventory
from hpx_core.models.tflite_fields import SUBGRAPH_NAME
from hpx_core.pipeline import ProfileOutcome

from .conftest import MLPERF_TINY, MODELS

pytestmark = pytest.mark.e2e
WORK = Path(tempfile.mkdtemp(prefix="hpx-heliart-e2e-"))
COMBOS = [("helia", "apollo510_evb"), ("cmsis_nn", "apollo510_evb"),
          ("reference", "apollo510_evb"), ("reference", "apollo4p_evb")]
_BUILT: dict[tuple[str, str, str], ProfileOutcome] = {}


def built(model: str, backend: str, board: str) -> ProfileOutcome:
    key = (model, backend, board)
    if key not in _BUILT:
        _BUILT[key] = profile_run(MODELS / f"{model}.tflite", "helia-rt", board,
                                  WORK / f"{model}-{backend}-{board}", backend=backend,
                                  until=BUILD_ONLY)
    return _BUILT[key]


@pytest.mark.parametrize("model", MLPERF_TINY)
@pytest.mark.parametrize(("backend", "board"), COMBOS)
def test_links_places_and_proves_its_backend(model: str, backend: str, board: str) -> None:
    done = built(model, backend, board)
    assert done.build is not None and done.build.elf.is_file()
    assert done.findings and all(f.passed for f in done.findings), done.findings
    assert done.placement is not None and done.sources is not None
    flash = next(r for r in done.placement.regions if r.region.serves("flash"))
    assert 0 < flash.used <= flash.region.length
    assert done.sources.provenance == "qualified"
    names = symbol_inventory(done.build.elf).names()
    if backend == "helia":
        assert ns_entry_points(names) and kernels(names)
    elif backend == "cmsis_nn":
        assert kernels(names) and not ns_entry_points(names)
    else:
        assert not kernels(names)


def test_each_unit_is_built_once_and_shared_by_every_model() -> None:
    def library(model: str, board: str) -> LibraryUse:
        contribution = built(model, "reference", board).contribution
        assert contribution is not None
        return contribution.libraries[0]

    first = library("kws_ref_model", "apollo510_evb")
    other = library("ad01_int8", "apollo510_evb")
    assert first.key != other.key  # the library's key and the kernels each model links
    again = profile_run(MODELS / "ad01_int8.tflite", "helia-rt", "apollo510_evb",
                        WORK / "ad01_int8-again", backend="reference", until=BUILD_ONLY)
    assert again.contribution is not None
    (use,) = again.contribution.libraries
    assert use.key == other.key and not use.built and use.compiled == 0  # nothing twice
    assert library("kws_ref_model", "apollo4p_evb").key != first.key  # another CPU


def test_an_unnamed_subgraph_builds_from_the_users_own_file(tmp_path: Path) -> None:
    """heliaRT reads no subgraph name: a TOCO-style model builds as it is, with no copy."""
    model = toco_style(MODELS / "kws_ref_model.tflite", tmp_path / "person_detect.tflite")
    done = profile_run(model, "helia-rt", "apollo510_evb", tmp_path / "run", backend="helia",
                       until=BUILD_ONLY)
    assert done.build is not None and done.build.elf.is_file()
    assert done.findings and all(f.passed for f in done.findings), done.findings
    assert done.model is not None and done.model.absent_fields == (SUBGRAPH_NAME,)
    assert done.model_copy is None
    assert not (done.build.elf.parents[1] / "model").exists()

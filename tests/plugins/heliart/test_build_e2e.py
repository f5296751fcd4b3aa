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
from hpx_heliart.e2e import HeliaRtBuild, build_model
from hpx_heliart.symbols import kernels, ns_entry_points

from hpx_core.build import symbol_inventory

from .conftest import MLPERF_TINY, MODELS

pytestmark = pytest.mark.e2e
WORK = Path(tempfile.mkdtemp(prefix="hpx-heliart-e2e-"))
COMBOS = [("helia", "apollo510_evb"), ("cmsis_nn", "apollo510_evb"),
          ("reference", "apollo510_evb"), ("reference", "apollo4p_evb")]
_BUILT: dict[tuple[str, str, str], HeliaRtBuild] = {}


def built(model: str, backend: str, board: str) -> HeliaRtBuild:
    key = (model, backend, board)
    if key not in _BUILT:
        _BUILT[key] = build_model(MODELS / f"{model}.tflite", backend, board,
                                  WORK / f"{model}-{backend}-{board}")
    return _BUILT[key]


@pytest.mark.parametrize("model", MLPERF_TINY)
@pytest.mark.parametrize(("backend", "board"), COMBOS)
def test_links_places_and_proves_its_backend(model: str, backend: str, board: str) -> None:
    done = built(model, backend, board)
    assert done.build.elf.is_file()
    assert all(f.passed for f in done.findings), done.findings
    flash = next(r for r in done.placement.regions if r.region.use == "flash")
    assert 0 < flash.used <= flash.region.length
    assert done.sources.provenance == "qualified"
    names = symbol_inventory(done.build.elf).names()
    if backend == "helia":
        assert ns_entry_points(names) and kernels(names)
    elif backend == "cmsis_nn":
        assert kernels(names) and not ns_entry_points(names)
    else:
        assert not kernels(names)


def test_the_library_is_built_once_and_shared_by_every_model() -> None:
    first = built("kws_ref_model", "reference", "apollo510_evb").library
    other = built("ad01_int8", "reference", "apollo510_evb").library
    assert first.folder == other.folder and not other.built
    m4 = built("kws_ref_model", "reference", "apollo4p_evb").library
    assert m4.folder != first.folder  # another CPU, another library

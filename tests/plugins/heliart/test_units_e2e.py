"""helia-rt built from source with the model's units links the firmware the whole backend
links, byte for byte (build-only: heliaRT runs on Ambiq CPUs only, so the equal image stands
for equal counts)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from images import loaded_image
from profiles import BUILD_ONLY, profile_run

from hpx_core.pipeline import ProfileOutcome

from .conftest import MODELS

pytestmark = pytest.mark.e2e
WORK = Path(tempfile.mkdtemp(prefix="hpx-heliart-units-"))
UNITS = re.compile(r"(\d+) of (\d+) units")


def _built(backend: str, kernels: str) -> ProfileOutcome:
    return profile_run(MODELS / "kws_ref_model.tflite", "helia-rt", "apollo510_evb",
                       WORK / f"{backend}-{kernels}", backend=backend, until=BUILD_ONLY,
                       kernels=kernels)


@pytest.mark.parametrize("backend", ["helia", "cmsis_nn", "reference"])
def test_kws_units_link_the_whole_backends_firmware(backend: str) -> None:
    whole, units = _built(backend, "all"), _built(backend, "model")
    for done in (whole, units):
        assert done.findings and all(f.passed for f in done.findings), done.findings
    assert whole.build is not None and units.build is not None
    assert loaded_image(units.build.elf) == loaded_image(whole.build.elf)
    assert units.contribution is not None
    (use,) = units.contribution.libraries
    linked = UNITS.fullmatch(use.linked or "")
    assert linked is not None and int(linked[1]) < int(linked[2])

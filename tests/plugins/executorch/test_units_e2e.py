"""``executorch`` with the runtime core kept as units links the firmware the whole core links.

Needs the pinned sources, the Arm toolchain and QEMU. The seed's tier1 arm program, profiled
with the units a program can link (the default) and with every unit of the core
(``kernels: all``): the same counts, the same loaded image byte for byte.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from images import loaded_image
from profiles import profile_run

from .conftest import TIER1

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
UNITS = re.compile(r"(\d+) of (\d+) units")


def test_tier1_counts_with_the_cores_units_exactly_as_with_the_whole_core(
        tmp_path: Path) -> None:
    program = TIER1 / "tier1_arm.pte"
    whole = profile_run(program, "executorch", "qemu-m55", tmp_path / "whole", backend="arm",
                        kernels="all")
    units = profile_run(program, "executorch", "qemu-m55", tmp_path / "units", backend="arm")
    assert whole.measurement is not None and units.measurement is not None
    assert units.measurement.validity == whole.measurement.validity == "valid"
    assert units.measurement.whole == whole.measurement.whole
    assert [x.counts for x in units.measurement.layers] == [
        x.counts for x in whole.measurement.layers]
    assert whole.build is not None and units.build is not None
    assert loaded_image(units.build.elf) == loaded_image(whole.build.elf)
    assert units.contribution is not None
    linked = UNITS.fullmatch(units.contribution.libraries[0].linked or "")
    assert linked is not None and int(linked[1]) < int(linked[2])

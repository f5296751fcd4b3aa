"""``executorch`` with the runtime core kept as units links the firmware the whole core links.

Needs the pinned sources, the Arm toolchain and QEMU. The seed's tier1 arm program, profiled
with the units a program can link (the default) and with every unit of the core
(``kernels: all``): the same counts, the same loaded image byte for byte; and with the arm
provider, only the program's Cortex-M kernels are registered and linked.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hpx_executorch.providers import cortex_m_ops
from hpx_executorch.verify import qualified
from images import loaded_image
from profiles import profile_run

from hpx_core.firmware import symbol_inventory
from hpx_core.reading import load_model

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


def test_the_arm_firmware_registers_and_links_only_the_programs_cortex_m_kernels(
        tmp_path: Path) -> None:
    program = TIER1 / "tier1_arm.pte"
    ops = cortex_m_ops(load_model(program))
    assert ops  # the program calls Cortex-M operators
    run = profile_run(program, "executorch", "qemu-m55", tmp_path / "run", backend="arm")
    assert run.build is not None
    names = {qualified(n) for n in symbol_inventory(run.build.elf).names()}
    linked = {n.removeprefix("cortex_m::native::") for n in names
              if n.startswith("cortex_m::native::") and n.endswith("_out")}
    assert linked == {op.removeprefix("cortex_m::").replace(".out", "_out") for op in ops}

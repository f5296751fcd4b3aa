"""The host reference the exporter wrote beside a real program: read as it is, and a file that
cannot be read is one ModelError naming the program, not a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hpx_executorch.outputs import reference_output

from hpx_core.errors import ModelError
from hpx_core.models import load_model

from .conftest import TIER1


def test_the_exporters_reference_is_handed_over() -> None:
    found = reference_output(load_model(TIER1 / "tier1_arm.pte"))
    assert found is not None and found.dtype == "float32" and found.data


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file without read permission")
def test_an_unreadable_reference_names_the_program(tmp_path: Path) -> None:
    program = tmp_path / "tier1_arm.pte"
    shutil.copy(TIER1 / "tier1_arm.pte", program)
    reference = tmp_path / "tier1_arm.output.f32"
    shutil.copy(TIER1 / "tier1_arm.output.f32", reference)
    reference.chmod(0)
    with pytest.raises(ModelError) as refused:
        reference_output(load_model(program))
    assert refused.value.message.startswith("tier1_arm.pte: its host reference")
    assert "\n" not in refused.value.message

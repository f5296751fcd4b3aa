"""The SDK's faces: the contract face every plugin loads at every command stays light, each
group loads only what it names, and the core's package face offers plugins nothing."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

MACHINERY = ("hpx_core.sdk.enginelib", "hpx_core.compare", "hpx_core.pipeline",
             "hpx_core.firmware", "hpx_core.models.flatbuf", "flatbuffers", "numpy", "lief",
             "git", "jsonschema")


def _loaded(module: str) -> set[str]:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return set(json.loads(done.stdout))


def test_the_contract_face_loads_no_machinery() -> None:
    loaded = _loaded("hpx_core.sdk")
    assert "hpx_core.contract" in loaded and "pluggy" in loaded
    assert sorted(m for m in MACHINERY if m in loaded) == []


@pytest.mark.parametrize(("face", "absent"), [
    ("hpx_core.sdk.models", "flatbuffers"),
    ("hpx_core.sdk.results", "hpx_core.compare"),
    ("hpx_core.sdk.sources", "hpx_core.sdk.enginelib"),
    ("hpx_core.sdk.passes", "numpy"),  # a pass loads with hpx profile: no bundle reader
    ("hpx_insight.instruction_pass", "numpy"),
])
def test_a_group_loads_only_what_it_names(face: str, absent: str) -> None:
    loaded = _loaded(face)
    assert face in loaded and absent not in loaded


def test_every_record_of_the_engine_reference_is_in_the_sdk() -> None:
    """docs/engine-reference.md lists the records an engine meets; each comes from the SDK."""
    import hpx_core.sdk
    import hpx_core.sdk.models

    page = (Path(__file__).resolve().parents[2] / "docs" / "engine-reference.md").read_text()
    records = re.findall(r"^### `([A-Z]\w+)`", page, re.M)
    assert "FirmwareRequest" in records and "ModelInfo" in records
    faces = {*hpx_core.sdk.__all__, *hpx_core.sdk.models.__all__}
    assert sorted(set(records) - faces) == []


def test_hookimpl_marks_hooks_for_hpx() -> None:
    from hpx_core.project import PROJECT_NAME
    from hpx_core.sdk import hookimpl

    @hookimpl
    def hpx_engines() -> list[object]:
        return []

    assert hookimpl.project_name == PROJECT_NAME
    assert hasattr(hpx_engines, f"{PROJECT_NAME}_impl")


def test_the_core_package_face_offers_plugins_nothing() -> None:
    import hpx_core

    with pytest.raises(AttributeError, match="hookimpl"):
        hpx_core.hookimpl  # noqa: B018  (what a plugin wrote before the SDK)
    assert hpx_core.__version__

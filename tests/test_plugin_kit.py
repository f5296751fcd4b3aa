"""The hooks the kit makes are hooks like hand-written ones: they answer the descriptor and the
structured config, take what their hook passes, and reach the core through pluggy."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from hpx_core import hookspecs
from hpx_core.config import load_config
from hpx_core.config.document import DocumentSection
from hpx_core.contract import ConfigRequest, EngineDescriptor
from hpx_core.errors import ConfigError
from hpx_core.plugin_kit import config_hook, engines_hook
from hpx_core.project import PROJECT_NAME


@attrs.frozen
class SampleConfig:
    depth: int = 1
    path: str = ""


def request(tmp_path: Path, section: str) -> ConfigRequest:
    config = tmp_path / "hpx.yaml"
    config.write_text(f"engine:\n  type: sample\n  config:\n{section}")
    _, document = load_config(config)
    return ConfigRequest("sample", None, DocumentSection(document))


def test_the_engines_hook_answers_its_descriptors_and_is_a_hook() -> None:
    descriptor = EngineDescriptor("sample", ("tflite",), SampleConfig)
    hook = engines_hook(descriptor)
    assert hook() == [descriptor]
    assert hook.__name__ == "hpx_engines" and hasattr(hook, f"{PROJECT_NAME}_impl")


def test_the_config_hook_structures_the_section_and_refuses_what_the_class_lacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hook = config_hook(SampleConfig, env={"path": "SAMPLE_PATH"})
    monkeypatch.setenv("SAMPLE_PATH", "/from/env")
    assert hook(request(tmp_path, "    depth: 3\n")) == SampleConfig(3, "/from/env")
    typo = r"hpx.yaml:4:5: unknown key 'engine.config.deph'; did you mean 'depth'"
    with pytest.raises(ConfigError, match=typo):
        hook(request(tmp_path, "    deph: 3\n"))


def test_a_module_of_kit_hooks_fits_the_contract() -> None:
    from types import ModuleType

    module = ModuleType("kit_plugin")
    module.hpx_engines = engines_hook()  # type: ignore[attr-defined]
    module.hpx_validate_config = config_hook(SampleConfig)  # type: ignore[attr-defined]
    assert hookspecs.misfit(module) is None

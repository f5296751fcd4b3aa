"""The registry finds engines through entry points and survives bad plugins."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from hpx_core.errors import PluginError
from hpx_core.plugins import ENTRY_POINT_GROUP, load_registry

SAMPLES = Path(__file__).parent / "plugin_samples"
BUILT_IN = {
    "tflm": "hpx-tflm",
    "helia-rt": "hpx-heliart",
    "helia-aot": "hpx-heliaaot",
    "executorch": "hpx-executorch",
}


def _entry(name: str, module: str) -> EntryPoint:
    return EntryPoint(name=name, value=module, group=ENTRY_POINT_GROUP)


@pytest.fixture
def samples_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(SAMPLES))


def test_four_engines_come_from_four_distributions() -> None:
    registry = load_registry(disabled=[])
    found = {name: e.plugin.distribution for name, e in registry.engines.items()}
    assert {k: found.get(k) for k in BUILT_IN} == BUILT_IN
    assert registry.engines["executorch"].descriptor.backends == ("arm", "ns")


def test_disable_by_plugin_name_and_by_distribution() -> None:
    registry = load_registry(disabled=["tflm", "hpx-executorch"])
    assert "tflm" not in registry.engines
    assert "executorch" not in registry.engines
    assert "helia-rt" in registry.engines


def test_disable_through_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_DISABLE_PLUGINS", "helia-aot, helia-rt")
    assert set(load_registry().engines) >= {"tflm", "executorch"}
    assert not {"helia-aot", "helia-rt"} & set(load_registry().engines)


def test_unknown_engine_lists_installed_ones() -> None:
    registry = load_registry(disabled=[])
    with pytest.raises(PluginError) as caught:
        registry.engine("tflmm")
    assert "did you mean 'tflm'" in caught.value.message
    assert "executorch, helia-aot, helia-rt, kernelbench, tflm" in caught.value.hint


@pytest.mark.usefixtures("samples_on_path")
def test_duplicate_engine_name_is_refused() -> None:
    import hpx_tflm.plugin

    registry = load_registry(
        entries=[_entry("tflm", hpx_tflm.plugin.__name__), _entry("dup", "dup_tflm")]
    )
    assert "tflm" in registry.conflicts
    with pytest.raises(PluginError, match="declared by"):
        registry.engine("tflm")


@pytest.mark.usefixtures("samples_on_path")
def test_misspelled_hook_skips_only_that_plugin() -> None:
    import hpx_tflm.plugin

    registry = load_registry(
        entries=[_entry("typo", "misspelled_hook"), _entry("tflm", hpx_tflm.plugin.__name__)]
    )
    assert list(registry.engines) == ["tflm"]
    (failure,) = registry.failures
    assert failure.plugin.name == "typo"
    assert "hpx_engine" in failure.reason


@pytest.mark.usefixtures("samples_on_path")
def test_import_error_and_failing_descriptor_are_reported_by_name() -> None:
    registry = load_registry(
        entries=[_entry("gone", "no_such_module_anywhere"), _entry("bad", "failing_descriptor")]
    )
    assert registry.engines == {}
    reasons = {f.plugin.name: f.reason for f in registry.failures}
    assert "ModuleNotFoundError" in reasons["gone"]
    assert "descriptor table is corrupt" in reasons["bad"]


def test_engine_hook_reaches_only_the_owning_plugin(tmp_path: Path) -> None:
    from hpx_tflm.config import TflmConfig

    from hpx_core.config import load_config
    from hpx_core.config.document import DocumentSection
    from hpx_core.contract import ConfigRequest
    from hpx_core.hooks import EngineHooks

    registry = load_registry(disabled=[])
    _, document = load_config(None, {"engine.type": ("tflm", "test")})
    answer = EngineHooks(registry).validate_config(
        "tflm", ConfigRequest("tflm", "reference", DocumentSection(document)))
    assert isinstance(answer, TflmConfig)


@pytest.mark.usefixtures("samples_on_path")
def test_an_engine_whose_plugin_renamed_a_parameter_is_refused_with_the_fix() -> None:
    import hpx_tflm.plugin

    registry = load_registry(
        entries=[_entry("renamed", "renamed_parameter"), _entry("tflm", hpx_tflm.plugin.__name__)]
    )
    assert list(registry.engines) == ["tflm"]
    with pytest.raises(PluginError) as caught:
        registry.engine("renamed")
    message, hint = caught.value.message, caught.value.hint
    assert "unknown engine" not in message
    assert "plugin 'renamed'" in message
    assert "hpx_generate_firmware takes (req) but the hook passes (request)" in message
    assert hint == ("rename parameter 'req' of hpx_generate_firmware to 'request' "
                    "(docs/engine-reference.md)")
    assert "\n" not in message + hint


@pytest.mark.usefixtures("samples_on_path")
def test_an_engine_whose_plugin_failed_to_import_is_refused_with_the_reason() -> None:
    registry = load_registry(entries=[_entry("no_such_module_anywhere",
                                             "no_such_module_anywhere")])
    with pytest.raises(PluginError, match="is not loaded: plugin 'no_such_module_anywhere' "
                                          r"\(unknown\) was skipped: ModuleNotFoundError"):
        registry.engine("no_such_module_anywhere")


@pytest.mark.usefixtures("samples_on_path")
def test_hpx_plugins_prints_a_skipped_plugin_s_fix_under_its_reason(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    import hpx_tflm.plugin

    from hpx_core.cli import main
    from hpx_core.plugins import list_plugins

    registry = load_registry(
        entries=[_entry("renamed", "renamed_parameter"), _entry("tflm", hpx_tflm.plugin.__name__)]
    )
    # the command asks hpx_core.api at call time: patch the module it will find there
    api = importlib.import_module("hpx_core.api")
    monkeypatch.setattr(api, "list_plugins", lambda reg=None: list_plugins(registry))
    assert main(["plugins"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # as read, whatever the terminal's width
    reason = out.index("hpx_generate_firmware takes (req) but the hook passes (request)")
    fix = out.index("hint: rename parameter 'req' of hpx_generate_firmware to 'request'")
    assert reason < fix

"""validate_config: the core's checks plus each engine plugin's own rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hpx_core import api
from hpx_core.errors import ConfigError

WriteYaml = Callable[..., Path]


def _refused(path: Path | None, overrides: api.Overrides | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        api.validate_config(path, overrides)
    return caught.value


def test_ns_ops_with_arm_backend_is_refused_at_its_line(write_yaml: WriteYaml) -> None:
    path = write_yaml("engine:\n  type: executorch\n  backend: arm\n  config:\n    ns_ops: true\n")
    error = _refused(path)
    assert error.location is not None and error.location.line == 5
    assert "ns_ops needs the ns provider" in error.message
    assert "engine.backend: ns" in error.hint


def test_ns_ops_with_ns_backend_is_accepted(write_yaml: WriteYaml) -> None:
    path = write_yaml("engine:\n  type: executorch\n  backend: ns\n  config: {ns_ops: true}\n")
    validated = api.validate_config(path)
    assert validated.engine_config.ns_ops is True
    assert validated.config.engine.backend == "ns"


def test_default_backend_comes_from_the_engine() -> None:
    validated = api.validate_config(None, {"engine.type": ("tflm", "--engine")})
    assert validated.config.engine.backend == "reference"
    assert validated.document.origin("engine.backend") == "default of engine tflm"


def test_unknown_backend_is_refused_with_choices() -> None:
    error = _refused(
        None, {"engine.type": ("tflm", "--engine"), "engine.backend": ("cmsisnn", "--backend")}
    )
    assert "did you mean 'cmsis_nn'" in error.message
    assert "reference, cmsis_nn" in error.hint


def test_unknown_engine_key_is_located(write_yaml: WriteYaml) -> None:
    path = write_yaml("engine:\n  type: executorch\n  config:\n    method_arena: 4096\n")
    error = _refused(path)
    assert error.location is not None and (error.location.line, error.location.column) == (4, 5)
    assert "did you mean 'method_arena_size'" in error.message


def test_executorch_locations_are_memory_use_words(write_yaml: WriteYaml) -> None:
    path = write_yaml("engine:\n  type: executorch\n  config:\n    io_location: mram\n")
    assert "must be one of 'code', 'flash', 'itcm', 'tcm', 'data'" in _refused(path).message


def test_heliart_env_fills_source_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HELIART_SOURCE_PATH", str(tmp_path))
    validated = api.validate_config(None, {"engine.type": ("helia-rt", "--engine")})
    assert validated.engine_config.source_path == tmp_path
    assert validated.document.origin("engine.config.source_path") == "env HELIART_SOURCE_PATH"


def test_heliart_two_sources_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIART_DIST_PATH", "/opt/heliart.zip")
    error = _refused(
        None,
        {
            "engine.type": ("helia-rt", "--engine"),
            "engine.config.source_path": ("src", "--engine-config"),
        },
    )
    assert "both choose where heliaRT comes from" in error.message


def test_resolver_ops_auto_or_list(write_yaml: WriteYaml) -> None:
    path = write_yaml("engine:\n  type: tflm\n  config:\n    resolver_ops: [CONV_2D, SOFTMAX]\n")
    assert api.validate_config(path).engine_config.resolver_ops == ("CONV_2D", "SOFTMAX")
    bad = write_yaml("engine:\n  type: tflm\n  config:\n    resolver_ops: some\n", "bad.yaml")
    assert 'expected "auto" or a list of names' in _refused(bad).message


def test_heliaaot_prefix_must_be_a_c_identifier() -> None:
    error = _refused(
        None,
        {
            "engine.type": ("helia-aot", "--engine"),
            "engine.config.prefix": ("9lives", "--engine-config"),
        },
    )
    assert "must be a C identifier" in error.message


def test_plugin_report_lists_the_four_engines() -> None:
    report = api.list_plugins(api.registry(reload=True))
    rows = {r.engine: r.distribution for r in report.engines}
    assert rows["tflm"] == "hpx-tflm" and rows["executorch"] == "hpx-executorch"

"""The tflm plugin's config and symbol checks (no sources needed)."""

from __future__ import annotations

from pathlib import Path

from hpx_tflm.config import TflmConfig
from hpx_tflm.symbols import verify_symbols

from hpx_core import api


def test_input_options_are_validated(tmp_path: Path) -> None:
    path = tmp_path / "hpx.yaml"
    path.write_text("engine:\n  type: tflm\n  config:\n    input: zeros\n    input_seed: 4\n")
    validated = api.validate_config(path, {})
    config = validated.engine_config
    assert isinstance(config, TflmConfig)
    assert (config.input, config.input_seed, config.resolver_ops) == ("zeros", 4, "auto")


def test_backend_symbol_checks() -> None:
    core = {"_ZN6tflite16MicroInterpreter6InvokeEv"}
    nn = core | {"arm_convolve_wrapper_s8", "arm_softmax_s8"}
    assert all(f.passed for f in verify_symbols("cmsis_nn", nn))
    assert all(f.passed for f in verify_symbols("reference", core))
    assert not all(f.passed for f in verify_symbols("cmsis_nn", core))
    assert not all(f.passed for f in verify_symbols("reference", nn))
    assert not verify_symbols("reference", {"main"})[0].passed

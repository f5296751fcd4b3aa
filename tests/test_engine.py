"""The helpers hooks use to read their context."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hpx_tflm.config import TflmConfig

from hpx_core import context_engine, context_engine_config


def test_the_engine_of_a_run_and_of_a_bare_check() -> None:
    run = SimpleNamespace(config=SimpleNamespace(engine=SimpleNamespace(type="tflm")))
    assert context_engine(run) == "tflm"
    assert context_engine(SimpleNamespace()) is None  # `hpx verify-kernels` has no config


def test_the_engine_config_from_the_context_or_its_validated_config() -> None:
    config = TflmConfig()
    assert context_engine_config(SimpleNamespace(engine_config=config), TflmConfig) is config
    validated = SimpleNamespace(engine_config=None,
                                validated=SimpleNamespace(engine_config=config))
    assert context_engine_config(validated, TflmConfig) is config
    with pytest.raises(TypeError, match="not"):
        context_engine_config(SimpleNamespace(engine_config=object()), TflmConfig)

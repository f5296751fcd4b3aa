"""The contract itself: every hook is typed with records (no Any), and what an engine gets
back from the core is checked to be what it handed over."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import attrs
import pytest
from hpx_tflm.config import TflmConfig

from hpx_core import contract
from hpx_core.boards import get_board
from hpx_core.contract import EngineSelection, ResultsRequest, SourceSet
from hpx_core.engine_protocol import HOOKS as TABLE
from hpx_core.errors import PluginError
from hpx_core.reading import load_model
from hpx_core.wire import Capture

HOOKS = [hook.method for hook in TABLE.values()]
KWS = Path(__file__).resolve().parents[1] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def _hints(hook: typing.Callable[..., object]) -> dict[str, object]:
    namespace = {**vars(contract), **vars(typing), "ModelInfo": object,
                 "AttrsInstance": attrs.AttrsInstance}
    return typing.get_type_hints(hook, globalns=namespace)


def test_every_hook_takes_one_request_record_and_has_no_any() -> None:
    assert len(HOOKS) == 13
    for hook in HOOKS:
        source = inspect.getsource(hook)
        assert "Any" not in source.split('"""')[0], hook.__name__
        params = list(inspect.signature(hook).parameters)[1:]  # after self
        assert params in ([], ["request"]), (hook.__name__, params)
        assert hook.__doc__ and len(hook.__doc__.split()) > 20, hook.__name__
        hints = _hints(hook)
        if params:
            assert attrs.has(hints["request"]), hook.__name__  # type: ignore[arg-type]


def test_every_record_of_the_contract_is_frozen_and_documented() -> None:
    records = [v for v in vars(contract).values()
               if isinstance(v, type) and attrs.has(v) and v.__module__ == contract.__name__]
    assert len(records) >= 15
    for record in records:
        assert record.__doc__, record.__name__
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            instance = object.__new__(record)
            setattr(instance, attrs.fields(record)[0].name, None)


def test_the_engine_config_comes_back_checked() -> None:
    config = TflmConfig()
    assert EngineSelection("tflm", "reference", config).config_as(TflmConfig) is config
    with pytest.raises(PluginError, match="not a TflmConfig") as caught:
        EngineSelection("tflm", "reference", object()).config_as(TflmConfig)
    assert caught.value.hint


def test_the_firmware_facts_come_back_checked() -> None:
    request = ResultsRequest(EngineSelection("tflm", None, TflmConfig()), get_board("qemu-m55"),
                             load_model(KWS), SourceSet([]), Capture(b"", (), ()), facts=("a", 1))
    assert request.facts_as(tuple) == ("a", 1)
    with pytest.raises(PluginError, match="firmware facts is a tuple, not a dict"):
        request.facts_as(dict)

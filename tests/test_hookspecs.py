"""A plugin's hooks that pluggy would refuse, or call wrongly, are named with their fix before
pluggy is asked; the shipped engines' hooks all fit."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

import pytest

from hpx_core.hookspecs import misfit
from hpx_core.sdk import hookimpl


def plugin(*functions: Callable[..., object]) -> ModuleType:
    module = ModuleType("sample_plugin")
    for function in functions:
        setattr(module, function.__name__, hookimpl(function))
    return module


def hpx_verify_symbols(request: object) -> list[object]:
    return []


def test_hooks_that_take_what_the_hook_passes_fit() -> None:
    def hpx_engines() -> list[object]:
        return []

    assert misfit(plugin(hpx_engines, hpx_verify_symbols)) is None


def test_a_function_that_is_no_hook_is_named_with_the_closest_hook() -> None:
    def hpx_verify_symbol(request: object) -> list[object]:
        return []

    problem = misfit(plugin(hpx_verify_symbol))
    assert problem is not None
    assert problem.message == "hpx_verify_symbol is not a hook; did you mean 'hpx_verify_symbols'?"


def keyword_only(*, request: object) -> list[object]:
    return []  # pluggy would call it with no argument


def defaulted(request: object = None) -> list[object]:
    return []  # pluggy would leave request at its default


def bare() -> list[object]:
    return []


def more(request: object, extra: object) -> list[object]:
    return []


@pytest.mark.parametrize("function", [keyword_only, defaulted, bare, more])
def test_parameters_pluggy_would_not_pass_are_refused_with_the_form_to_write(
        function: Callable[..., list[object]]) -> None:
    function.__name__ = "hpx_verify_symbols"
    problem = misfit(plugin(function))
    assert problem is not None
    assert problem.message.startswith("hpx_verify_symbols takes (")
    assert problem.message.endswith("but the hook passes (request)")
    assert problem.hint == ("declare it as def hpx_verify_symbols(request) "
                            "(docs/engine-reference.md)")


def test_an_unmarked_function_is_not_a_hook() -> None:
    module = ModuleType("sample_plugin")
    module.hpx_helper = lambda x: x  # type: ignore[attr-defined]
    assert misfit(module) is None


@pytest.mark.parametrize("name", ["hpx_tflm.plugin", "hpx_heliart.plugin",
                                  "hpx_heliaaot.plugin", "hpx_executorch.plugin",
                                  "hpx_kernelbench.plugin"])
def test_the_shipped_engines_fit(name: str) -> None:
    assert misfit(importlib.import_module(name)) is None

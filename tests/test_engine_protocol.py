"""The protocols a plugin is type-checked against say what the hookspecs say.

A protocol whose signature drifted from its hookspec would let mypy pass a plugin pluggy then
calls wrongly; and a plugin that states a protocol must fail mypy when a hook answers the wrong
type, or the statement checks nothing.
"""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hpx_core import engine_protocol, hookspecs

HOOKSPECS = {name: function for name, function in vars(hookspecs).items()
             if name.startswith("hpx_") and callable(function)}


def protocol_methods() -> dict[str, inspect.Signature]:
    methods: dict[str, inspect.Signature] = {}
    for protocol in engine_protocol.PROTOCOLS:
        for name, function in vars(protocol).items():
            if name.startswith("hpx_"):
                assert name not in methods, f"{name} is in two protocols"
                methods[name] = inspect.signature(function)
    return methods


def without_self(signature: inspect.Signature) -> inspect.Signature:
    parameters = list(signature.parameters.values())[1:]
    return signature.replace(parameters=parameters)


def test_every_hook_is_in_one_protocol() -> None:
    assert set(protocol_methods()) == set(HOOKSPECS)


def test_each_protocol_method_has_its_hookspecs_signature() -> None:
    for name, signature in protocol_methods().items():
        assert without_self(signature) == inspect.signature(HOOKSPECS[name]), name


SHIPPED_PLUGINS = ("hpx_tflm.plugin", "hpx_heliart.plugin", "hpx_heliaaot.plugin",
                   "hpx_executorch.plugin")


@pytest.mark.parametrize("module", SHIPPED_PLUGINS)
def test_shipped_plugins_state_the_protocols_of_the_hooks_they_implement(module: str) -> None:
    """A plugin that implements a hook without stating its protocol is not checked by mypy."""
    plugin = __import__(module, fromlist=["_"])
    source = Path(inspect.getfile(plugin)).read_text()
    implemented = {name for name in HOOKSPECS if callable(getattr(plugin, name, None))}
    stated = {name for protocol in engine_protocol.PROTOCOLS
              if f"contract.{protocol.__name__} = this" in source
              for name in vars(protocol) if name.startswith("hpx_")}
    assert implemented == stated


WRONG_PLUGIN = '''
    from __future__ import annotations

    from typing import TYPE_CHECKING

    from hpx_core.sdk import MemoryNeeds, MemoryRequest


    def hpx_plan_memory(request: MemoryRequest) -> list[MemoryNeeds]:
        raise NotImplementedError


    if TYPE_CHECKING:
        from hpx_core.sdk import engine_protocol as contract
        from wrong_engine import plugin as this

        _plansmemory: contract.PlansMemory = this
'''


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_refuses_a_plugin_whose_hook_answers_the_wrong_type(tmp_path: Path) -> None:
    package = tmp_path / "wrong_engine"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(textwrap.dedent(WRONG_PLUGIN))
    right = (package / "plugin.py").read_text().replace("list[MemoryNeeds]", "MemoryNeeds")

    def mypy() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
             "--cache-dir", str(tmp_path / "cache"), "-p", "wrong_engine"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)

    wrong = mypy()
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "PlansMemory" in wrong.stdout and "hpx_plan_memory" in wrong.stdout, wrong.stdout

    (package / "plugin.py").write_text(right)
    fixed = mypy()
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr

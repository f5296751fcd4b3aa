"""Every hook is written once, in :mod:`hpx_core.engine_protocol`, and what is made from it
agrees: the table holds every protocol method, pluggy's specifications are the table's, the
core has a typed call for each, and the docstrings say whom the core asks as the table does.

A plugin that states a protocol must fail mypy when a hook answers the wrong type or names its
parameter otherwise than the hook, or the statement checks nothing.
"""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pluggy
import pytest

from hpx_core import engine_protocol, hookspecs
from hpx_core.engine_protocol import HOOKS, Reach
from hpx_core.hooks import EngineHooks
from hpx_core.project import PROJECT_NAME


def protocol_methods() -> dict[str, object]:
    methods: dict[str, object] = {}
    for protocol in engine_protocol.PROTOCOLS:
        for name, function in vars(protocol).items():
            if name.startswith("hpx_"):
                assert name not in methods, f"{name} is in two protocols"
                methods[name] = function
    return methods


def test_every_protocol_method_is_one_row_of_the_table() -> None:
    methods = protocol_methods()
    assert set(methods) == set(HOOKS)
    assert all(HOOKS[name].method is method for name, method in methods.items())


def test_the_request_is_keyword_only_so_mypy_checks_its_name() -> None:
    for hook in HOOKS.values():
        parameters = list(inspect.signature(hook.method).parameters.values())[1:]
        assert [p.kind for p in parameters] == [inspect.Parameter.KEYWORD_ONLY] * len(
            hook.parameters), hook.name


def test_pluggy_reads_the_tables_specifications() -> None:
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(hookspecs.SPECS)
    specs = {name: getattr(manager.hook, name).spec for name in dir(manager.hook)
             if name.startswith("hpx_")}
    assert set(specs) == set(HOOKS)
    for name, spec in specs.items():
        hook = HOOKS[name]
        assert spec.argnames == hook.parameters, name
        assert spec.opts["firstresult"] is hook.firstresult, name
        assert inspect.getdoc(spec.function) == hook.doc, name


def test_the_core_has_a_typed_call_for_each_hook_the_registry_does_not_ask_itself() -> None:
    calls = {name for name in vars(EngineHooks) if not name.startswith("_")}
    assert calls == {name.removeprefix("hpx_") for name in HOOKS} - {"engines"}


def test_each_docstring_says_whom_the_core_asks_as_the_table_does() -> None:
    for hook in HOOKS.values():
        said = " ".join(hook.doc.split())
        if hook.reach is Reach.EVERY_PLUGIN:
            assert "on every plugin" in said, hook.name
        elif hook.reach is Reach.ENGINE_ELSE_FIRST:
            assert "each plugin until one answers" in said, hook.name
        else:
            assert "every plugin" not in said, hook.name


def test_a_wrong_answer_record_is_named_with_the_plugin_and_hook() -> None:
    from hpx_core.contract import NotesRequest
    from hpx_core.errors import PluginError
    from hpx_core.plugins import load_registry
    from hpx_core.reading import load_model

    model = Path(__file__).resolve().parents[1] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
    registry = load_registry(disabled=[])

    class Wrong:
        @pluggy.HookimplMarker(PROJECT_NAME)
        def hpx_describe_model(self, request: NotesRequest) -> list[str]:
            return ["not a note"]

    registry.manager.register(Wrong(), name="wrong")
    with pytest.raises(PluginError, match="wrong answered hpx_describe_model with a str, not a "
                                          "ModelNote"):
        EngineHooks(registry).describe_model(NotesRequest(load_model(model)))


SHIPPED_PLUGINS = ("hpx_tflm.plugin", "hpx_heliart.plugin", "hpx_heliaaot.plugin",
                   "hpx_executorch.plugin")


@pytest.mark.parametrize("module", SHIPPED_PLUGINS)
def test_shipped_plugins_state_the_protocols_of_the_hooks_they_implement(module: str) -> None:
    """A plugin that implements a hook without stating its protocol is not checked by mypy."""
    plugin = __import__(module, fromlist=["_"])
    source = Path(inspect.getfile(plugin)).read_text()
    implemented = {name for name in HOOKS if callable(getattr(plugin, name, None))}
    stated = {name for protocol in engine_protocol.PROTOCOLS
              if f"contract.{protocol.__name__} = this" in source
              for name in vars(protocol) if name.startswith("hpx_")}
    assert implemented == stated


PLUGIN = '''
    from __future__ import annotations

    from typing import TYPE_CHECKING

    from hpx_core.sdk import MemoryNeeds, MemoryRequest


    def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
        raise NotImplementedError


    if TYPE_CHECKING:
        from hpx_core.sdk import engine_protocol as contract
        from {package} import plugin as this

        _plansmemory: contract.PlansMemory = this
'''
WRONG = {  # package: what is wrong with its hook, as mypy's note shows the plugin's signature
    "wrong_answer": ("-> MemoryNeeds:", "-> list[MemoryNeeds]:"),
    "renamed_parameter": ("(request: MemoryRequest)", "(req: MemoryRequest)"),
}


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_refuses_a_hook_with_a_wrong_answer_or_a_renamed_parameter(tmp_path: Path) -> None:
    def package(name: str, right: str = "", wrong: str = "") -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        source = textwrap.dedent(PLUGIN).format(package=name).replace(right, wrong)
        (tmp_path / name / "plugin.py").write_text(source)

    def mypy(*packages: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
             "--cache-dir", str(tmp_path / "cache"), *(f"-p{p}" for p in packages)],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)

    for name, (right, wrong) in WRONG.items():
        package(name, right, wrong)
    refused = mypy(*WRONG)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    for name, (_, wrong) in WRONG.items():
        said = [line for line in refused.stdout.splitlines() if line.startswith(name)]
        assert any("PlansMemory" in line for line in said), refused.stdout
        assert any(wrong.rstrip(":") in line for line in said), refused.stdout

    package("right_plugin")
    fixed = mypy("right_plugin")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr

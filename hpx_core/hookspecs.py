"""The hooks as pluggy knows them, made from :data:`hpx_core.engine_protocol.HOOKS`.

pluggy needs a function per hook specification; writing them here a second time is how the
contract once drifted, so each is made from its protocol method: the same name, docstring and
parameter (``request``, which pluggy passes by name), first answer only unless the hook reaches
every plugin. pluggy itself checks a plugin's hooks only for unknown names, and refuses a
renamed parameter with a message that names neither the fix nor the hook's parameter;
:func:`misfit` says both, before pluggy is asked.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType

import pluggy

from hpx_core.engine_protocol import HOOKS, Hook
from hpx_core.errors import PluginError
from hpx_core.project import PROJECT_NAME
from hpx_core.suggest import did_you_mean

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
REFERENCE = "docs/engine-reference.md"


def _taking_request() -> Callable[..., None]:
    def spec(request: object) -> None:
        """pluggy reads only the parameter's name."""

    return spec


def _taking_nothing() -> Callable[..., None]:
    def spec() -> None:
        """pluggy reads that there is no parameter."""

    return spec


def _spec(hook: Hook) -> Callable[..., None]:
    """A new function pluggy reads as ``hook``'s specification (it never calls it)."""
    spec = _taking_request() if hook.parameters == ("request",) else _taking_nothing()
    assert hook.parameters in ((), ("request",)), hook.name
    spec.__name__ = spec.__qualname__ = hook.name
    spec.__doc__ = hook.doc
    return hookspec(firstresult=hook.firstresult)(spec)


SPECS: type = type("HookSpecs", (), {hook.name: _spec(hook) for hook in HOOKS.values()})
"""The namespace ``PluginManager.add_hookspecs`` reads."""


def misfit(plugin: ModuleType) -> PluginError | None:
    """The first hook implementation of ``plugin`` pluggy would refuse or call wrongly."""
    marker = f"{PROJECT_NAME}_impl"
    for name in dir(plugin):
        function = getattr(plugin, name)
        if getattr(function, marker, None) is None:
            continue
        if name not in HOOKS:
            return PluginError(f"{name} is not a hook{did_you_mean(name, HOOKS)}",
                               f"rename it to one of the hooks ({REFERENCE} lists them)")
        problem = _parameters_misfit(HOOKS[name], function)
        if problem is not None:
            return problem
    return None


def _parameters_misfit(hook: Hook, function: Callable[..., object]) -> PluginError | None:
    """pluggy passes exactly ``hook.parameters``, by position, to a function that names them."""
    parameters = list(inspect.signature(function).parameters.values())
    names = tuple(p.name for p in parameters)
    plain = all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in parameters)
    if names == hook.parameters and plain:
        return None
    wanted = ", ".join(hook.parameters)
    message = f"{hook.name} takes ({', '.join(names)}) but the hook passes ({wanted})"
    if len(names) == len(hook.parameters) == 1 and plain:
        return PluginError(message, f"rename parameter {names[0]!r} of {hook.name} to "
                                    f"{hook.parameters[0]!r} ({REFERENCE})")
    return PluginError(message, f"declare it as def {hook.name}({wanted}) ({REFERENCE})")

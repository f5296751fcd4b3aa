"""The hooks every engine plugin writes alike, made once for it.

Every engine answers ``hpx_engines`` with its descriptor and nothing else, and many an engine's
``hpx_validate_config`` only structures the section into its config class. A plugin module
states what differs (the descriptor, the class) and gets the hook::

    hpx_engines = engines_hook(EngineDescriptor(name=ENGINE, ...))
    hpx_validate_config = config_hook(MyConfig)

The hooks made here take exactly what their hook passes, so pluggy registers them and mypy
checks them against :mod:`hpx_core.engine_protocol` like hooks written by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

import pluggy
from attrs import AttrsInstance

from hpx_core.contract import ConfigRequest, EngineDescriptor
from hpx_core.project import PROJECT_NAME

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
C = TypeVar("C", bound=AttrsInstance)
C_co = TypeVar("C_co", bound=AttrsInstance, covariant=True)


class ConfigHook(Protocol[C_co]):
    """An ``hpx_validate_config`` answering a ``C_co`` (its parameter named as the hook's)."""

    def __call__(self, request: ConfigRequest) -> C_co: ...


def engines_hook(*descriptors: EngineDescriptor) -> Callable[[], list[EngineDescriptor]]:
    """The ``hpx_engines`` of a plugin that provides the engines ``descriptors`` describe."""

    def hpx_engines() -> list[EngineDescriptor]:
        return list(descriptors)

    return hookimpl(hpx_engines)


def config_hook(config_class: type[C], *, env: Mapping[str, str] | None = None) -> ConfigHook[C]:
    """The ``hpx_validate_config`` of an engine whose config has no rule across its fields:
    ``engine.config`` structured into ``config_class`` (``env``: field names to environment
    variables that supply a value nothing else set)."""

    def hpx_validate_config(request: ConfigRequest) -> C:
        return request.section.structure(config_class, env=env)

    return hookimpl(hpx_validate_config)

"""Finding engine plugins through the ``hpx.engines`` entry-point group.

Every engine, including those that ship with hpx, is found this way; the core's own plugins
(:mod:`hpx_core.default_plugins`: the ``.tflite`` reader) are registered first, always. A
plugin that fails to import or breaks the contract (a misspelled hook, a failing descriptor,
pins that contradict another plugin's) is reported by name and skipped; hpx keeps working with
the rest. The registry also merges the core's pins with every engine's into one catalog.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

import attrs
import pluggy

from hpx_core import hookspecs
from hpx_core.contract import EngineDescriptor
from hpx_core.default_plugins import tflite_format
from hpx_core.errors import HpxError, PluginError
from hpx_core.log import get_logger
from hpx_core.project import PROJECT_NAME
from hpx_core.sources.pins import EngineSources, PinSet, core_pins, merge_pins
from hpx_core.suggest import did_you_mean

ENTRY_POINT_GROUP = "hpx.engines"
PASS_GROUP = "hpx.passes"
"""Uncounted passes of installed distributions (loaded by :mod:`hpx_core.pass_plugins`)."""
DISABLE_ENV = "HPX_DISABLE_PLUGINS"

log = get_logger(__name__)


@attrs.frozen
class DefaultPlugin:
    """One of the core's own plugins: its name on the plugin manager and the formats it reads."""

    name: str
    module: ModuleType
    formats: tuple[str, ...]


DEFAULT_PLUGINS = (DefaultPlugin("core-tflite", tflite_format, (tflite_format.FORMAT,)),)
"""Registered on every registry before the installed plugins (:mod:`hpx_core.default_plugins`)."""


@attrs.frozen
class PluginInfo:
    """An installed plugin: its entry-point name, distribution and version."""

    name: str
    distribution: str
    version: str


@attrs.frozen
class PluginFailure:
    """A plugin that could not be used, why, what fixes it (when known) and the engines it
    declares (when its module loaded: an engine asked for by name is then refused with this
    reason, not as unknown)."""

    plugin: PluginInfo
    reason: str
    hint: str = ""
    engines: tuple[str, ...] = ()


@attrs.frozen
class EngineEntry:
    """An engine as the registry knows it: its descriptor and the plugin that provides it."""

    descriptor: EngineDescriptor
    plugin: PluginInfo
    module: ModuleType


@attrs.frozen
class Registry:
    """The loaded plugins and the engines they provide."""

    manager: pluggy.PluginManager
    engines: Mapping[str, EngineEntry]
    failures: tuple[PluginFailure, ...] = ()
    conflicts: Mapping[str, tuple[PluginInfo, ...]] = attrs.field(factory=dict)
    catalog: PinSet = attrs.field(factory=core_pins)
    disabled: tuple[PluginInfo, ...] = ()  # installed, left out by HPX_DISABLE_PLUGINS
    passes: tuple[EntryPoint, ...] = ()  # the hpx.passes entry points, by name, not loaded

    def engine(self, name: str) -> EngineEntry:
        """The engine called ``name``, or a PluginError listing what is installed."""
        if name in self.conflicts:
            owners = " and ".join(p.distribution for p in self.conflicts[name])
            raise PluginError(
                f"engine {name!r} is declared by {owners}",
                f"uninstall one of them or disable one with {DISABLE_ENV}=<plugin name>",
            )
        if name not in self.engines:
            installed = ", ".join(sorted(self.engines)) or "none"
            failed = [f for f in self.failures if name in f.engines or f.plugin.name == name]
            if failed:
                raise _not_loaded(name, failed[0])
            off = [p.name for p in self.disabled if p.name == name or name in p.distribution]
            if off:
                raise PluginError(f"engine {name!r} is disabled ({DISABLE_ENV} names "
                                  f"{off[0]!r})", f"unset {DISABLE_ENV} to use it; installed "
                                  f"engines now: {installed}")
            raise PluginError(
                f"unknown engine {name!r}{did_you_mean(name, self.engines)}",
                f"installed engines: {installed}; engines are Python packages that declare "
                f"the {ENTRY_POINT_GROUP!r} entry point (`hpx plugins` lists them)",
            )
        return self.engines[name]


def load_registry(
    *,
    no_plugins: bool = False,
    disabled: Iterable[str] | None = None,
    entries: Iterable[EntryPoint] | None = None,
    pass_entries: Iterable[EntryPoint] | None = None,
) -> Registry:
    """Load every plugin in the entry-point group, skipping disabled and broken ones.

    ``no_plugins`` loads none (no engine is usable; for diagnosing a broken install);
    ``disabled`` (default: the comma-separated ``HPX_DISABLE_PLUGINS``) names plugins or
    distributions to leave out; ``entries`` replaces the installed entry points (embedding hpx,
    tests), ``pass_entries`` those of the uncounted passes (:data:`PASS_GROUP`).
    """
    skip = set(disabled if disabled is not None else _disabled_from_env())
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(hookspecs.SPECS)
    for default in DEFAULT_PLUGINS:  # the core's own formats, asked after the plugins'
        manager.register(default.module, name=default.name)
    loaded: list[tuple[PluginInfo, ModuleType]] = []
    failures: list[PluginFailure] = []
    left_out: list[PluginInfo] = []
    installed = entries if entries is not None else entry_points(group=ENTRY_POINT_GROUP)
    for entry in sorted(installed, key=lambda e: e.name) if not no_plugins else []:
        info = _info(entry)
        if info.name in skip or info.distribution in skip:
            left_out.append(info)
            continue
        module: object = None
        try:
            module = entry.load()
            loaded.append((info, _register(manager, entry, module)))
        except Exception as error:  # a broken plugin must never take hpx down
            failures.append(_failure(info, error, module))
            log.debug("plugin skipped", plugin=info.name, reason=str(error))
    engines, conflicts, described_failures = _collect_engines(manager, loaded)
    catalog, pin_failures = _catalog(engines)
    for failure in pin_failures:
        engines = {n: e for n, e in engines.items() if e.plugin != failure.plugin}
    passes = _pass_entries(pass_entries, skip, no_plugins)
    return Registry(manager, engines, tuple(failures + described_failures + pin_failures),
                    conflicts, catalog, tuple(left_out), passes)


def _pass_entries(given: Iterable[EntryPoint] | None, skip: set[str], no_plugins: bool
                  ) -> tuple[EntryPoint, ...]:
    """The uncounted passes' entry points a run loads (none disabled by name or
    distribution)."""
    found = given if given is not None else entry_points(group=PASS_GROUP)
    kept = [e for e in found
            if not no_plugins and not {_info(e).name, _info(e).distribution} & skip]
    return tuple(sorted(kept, key=lambda e: e.name))


def _register(manager: pluggy.PluginManager, entry: EntryPoint, module: object) -> ModuleType:
    """``module`` registered, once its hooks fit the contract; else the error saying how not."""
    if not isinstance(module, ModuleType):
        raise PluginError(f"entry point {entry.value!r} is not a module", "")
    misfit = hookspecs.misfit(module)
    if misfit is not None:
        raise misfit
    manager.register(module, name=entry.name)
    try:
        manager.check_pending()  # a misspelled hook name fails here, loudly
    except pluggy.PluginValidationError:
        manager.unregister(module)
        raise
    return module


def _failure(info: PluginInfo, error: Exception, module: object) -> PluginFailure:
    """Why the plugin was skipped; and, if its module loaded, the engines it declares (asked
    of the module directly: pluggy refused it)."""
    declared: tuple[str, ...] = ()
    if isinstance(module, ModuleType) and callable(getattr(module, "hpx_engines", None)):
        try:
            declared = tuple(d.name for d in module.hpx_engines())
        except Exception:  # its descriptor fails too: the first failure is the one to show
            declared = ()
    if isinstance(error, HpxError):
        return PluginFailure(info, error.message, error.hint, declared)
    return PluginFailure(info, f"{type(error).__name__}: {error}", "", declared)


def _not_loaded(name: str, failure: PluginFailure) -> PluginError:
    plugin = failure.plugin
    return PluginError(
        f"engine {name!r} is not loaded: plugin {plugin.name!r} ({plugin.distribution}) was "
        f"skipped: {failure.reason}",
        failure.hint or f"fix or reinstall {plugin.distribution}, or disable it with "
                        f"{DISABLE_ENV}={plugin.name} (`hpx plugins` lists what loaded)")


def _collect_engines(
    manager: pluggy.PluginManager, loaded: list[tuple[PluginInfo, ModuleType]]
) -> tuple[dict[str, EngineEntry], dict[str, tuple[PluginInfo, ...]], list[PluginFailure]]:
    engines: dict[str, EngineEntry] = {}
    owners: dict[str, list[PluginInfo]] = {}
    failures: list[PluginFailure] = []
    for info, module in loaded:
        others = [p for p in manager.get_plugins() if p is not module]
        try:
            answers = manager.subset_hook_caller("hpx_engines", remove_plugins=others)()
        except Exception as error:
            manager.unregister(module)
            failures.append(PluginFailure(info, f"hpx_engines() failed: {error}"))
            continue
        for descriptor in (d for answer in answers for d in answer):
            owners.setdefault(descriptor.name, []).append(info)
            engines[descriptor.name] = EngineEntry(descriptor, info, module)
    conflicts = {name: tuple(infos) for name, infos in owners.items() if len(infos) > 1}
    for name in conflicts:
        del engines[name]
    return engines, conflicts, failures


def _declared_pins(entry: EngineEntry) -> PinSet:
    """The engine's pins, stamped with its distribution; an engine without pins has none."""
    descriptor = entry.descriptor
    pins = descriptor.pins or PinSet({}, {}, {}, {})
    if descriptor.name not in pins.engines:
        bare = EngineSources(descriptor.name, "", (), (), dict.fromkeys(descriptor.backends, ()))
        pins = attrs.evolve(pins, engines={**pins.engines, descriptor.name: bare})
    declared = pins.engines[descriptor.name]
    if set(declared.backends) != set(descriptor.backends):
        raise PluginError(
            f"engine {descriptor.name!r} declares backends {list(descriptor.backends)} but pins "
            f"for {sorted(declared.backends)}", "make the descriptor and pins.toml agree")
    owner = entry.plugin.distribution
    return attrs.evolve(pins, declared_by=dict.fromkeys(pins.declared_by, owner)
                        | {descriptor.name: owner})


def _catalog(engines: Mapping[str, EngineEntry]) -> tuple[PinSet, list[PluginFailure]]:
    """The core's pins merged with every engine's; a plugin whose pins conflict is dropped."""
    catalog = core_pins()
    failures: list[PluginFailure] = []
    for entry in engines.values():
        try:
            catalog = merge_pins(catalog, _declared_pins(entry))
        except HpxError as error:
            failures.append(PluginFailure(entry.plugin, error.message, error.hint,
                                          (entry.descriptor.name,)))
    return catalog, failures


def _info(entry: EntryPoint) -> PluginInfo:
    dist = entry.dist
    return PluginInfo(
        name=entry.name,
        distribution=dist.name if dist else "unknown",
        version=dist.version if dist else "unknown",
    )


def _disabled_from_env() -> list[str]:
    return [name.strip() for name in os.environ.get(DISABLE_ENV, "").split(",") if name.strip()]


_registry: Registry | None = None


def default_registry(*, no_plugins: bool = False, reload: bool = False) -> Registry:
    """The plugin registry of this process, loaded once."""
    global _registry
    if _registry is None or reload or no_plugins:
        _registry = load_registry(no_plugins=no_plugins)
    return _registry


@attrs.frozen
class PluginRow:
    """One engine as ``hpx plugins`` shows it."""

    engine: str
    distribution: str
    version: str
    model_formats: tuple[str, ...]
    backends: tuple[str, ...]
    summary: str


@attrs.frozen
class PluginReport:
    """Installed engines, and plugins that could not be used."""

    engines: tuple[PluginRow, ...]
    failures: tuple[PluginFailure, ...]
    conflicts: tuple[str, ...]


def list_plugins(reg: Registry | None = None) -> PluginReport:
    """What engines are installed, from which distributions."""
    reg = reg or default_registry()
    rows = tuple(
        PluginRow(
            engine=name,
            distribution=entry.plugin.distribution,
            version=entry.plugin.version,
            model_formats=entry.descriptor.model_formats,
            backends=entry.descriptor.backends,
            summary=entry.descriptor.summary,
        )
        for name, entry in sorted(reg.engines.items())
    )
    return PluginReport(rows, reg.failures, tuple(sorted(reg.conflicts)))

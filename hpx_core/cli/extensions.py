"""What installed distributions add to the command line: the flags of their passes on
``hpx profile`` and their own commands.

A pass with options (:class:`hpx_core.config.pass_keys.ConfiguredPass`) lists
:class:`~hpx_core.config.pass_keys.PassFlag` records; each becomes an option of ``hpx profile``
whose value the command hands on as a config override, the flag as its origin. A distribution
adds a command with an ``hpx.commands`` entry point naming a function typer can turn into one
(the entry point's name is the command's). Both are looked up only when asked for: ``hpx
--help`` lists the commands by name, and the passes load when ``hpx profile`` runs.
"""

from __future__ import annotations

import gc
from typing import Any, ClassVar

import typer
from typer.core import TyperGroup, TyperOption

COMMAND_GROUP = "hpx.commands"
GIVEN = "hpx.pass_flags"
"""Where the flags given on the command line wait for the command (click's ``ctx.meta``)."""
FLAGGED_COMMANDS = ("profile",)


class ExtendedGroup(TyperGroup):
    """The ``hpx`` group: the core's commands, every ``hpx.commands`` entry point's, and the
    passes' flags on the commands that take them."""

    freeze_loaded: ClassVar[bool] = False
    """Set by the console script: once the command is known (and with it what its options
    imported), freeze what is loaded (:mod:`hpx_core.console` says why)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        resolved = super().resolve_command(ctx, args)
        if self.freeze_loaded:
            gc.freeze()
        return resolved

    def list_commands(self, ctx: Any) -> list[str]:
        own = super().list_commands(ctx)
        return [*own, *sorted(name for name in _entries() if name not in own)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in _entries():
            command = _loaded_command(cmd_name)
            self.add_command(command, cmd_name)
        if command is not None and cmd_name in FLAGGED_COMMANDS and not _flagged(command):
            command.params.extend(_option(flag) for flag in _pass_flags())
        return command


def given_pass_flags(context: typer.Context) -> tuple[tuple[str, Any, str], ...]:
    """The pass flags given to the running command: (key, value, flag) each."""
    return tuple(context.meta.get(GIVEN, ()))


def _entries() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {entry.name: entry for entry in entry_points(group=COMMAND_GROUP)}


def _loaded_command(name: str) -> Any:
    from hpx_core.errors import PluginError

    entry = _entries()[name]
    try:
        function = entry.load()
    except Exception as error:
        raise PluginError(f"the {COMMAND_GROUP} entry point {name} = {entry.value} does not "
                          f"load ({type(error).__name__}: {error})",
                          "fix or uninstall the distribution that declares it") from None
    single = typer.Typer(pretty_exceptions_enable=False, add_completion=False)
    single.command(name=name)(function)
    return typer.main.get_command(single)


def _pass_flags() -> list[Any]:
    from hpx_core.config.pass_keys import ConfiguredPass
    from hpx_core.pass_plugins import pass_plugins
    from hpx_core.plugins import default_registry

    return [flag for found in pass_plugins(default_registry().passes)
            if isinstance(found, ConfiguredPass) for flag in found.flags]


def _flagged(command: Any) -> bool:
    return any(getattr(p, "pass_flag", False) for p in command.params)


class _PassOption(TyperOption):
    """A pass's flag: its value goes to :data:`GIVEN`, not to the command's parameters."""

    pass_flag = True


def _option(flag: Any) -> TyperOption:
    def keep(context: typer.Context, _param: Any, value: Any) -> None:
        if value is not None and value is not False:
            shown = str(value) if flag.kind == "path" else value
            context.meta.setdefault(GIVEN, []).append((flag.key, shown, flag.flag))

    return _PassOption(param_decls=[flag.flag], is_flag=flag.kind == "switch" or None,
                       default=None, expose_value=False, callback=keep, help=flag.help,
                       metavar=None if flag.kind == "switch" else flag.kind.upper())

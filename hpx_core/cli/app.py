"""The typer application and its command groups; command modules attach to these."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from hpx_core.cli.extensions import ExtendedGroup

app = typer.Typer(
    name="hpx",
    cls=ExtendedGroup,
    help="Profile ML inference on Cortex-M: real Apollo boards or emulated ones.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
config_app = typer.Typer(help="Check and explain a profile configuration.", no_args_is_help=True)
sources_app = typer.Typer(help="Pinned engine sources.", no_args_is_help=True)
cache_app = typer.Typer(help="The source and build cache.", no_args_is_help=True)
results_app = typer.Typer(help="Result bundles.", no_args_is_help=True)

app.add_typer(config_app, name="config")
app.add_typer(sources_app, name="sources")
app.add_typer(cache_app, name="cache")
app.add_typer(results_app, name="results")

console = Console(width=None if sys.stdout.isatty() else 200, soft_wrap=not sys.stdout.isatty())
"""Where commands print: the terminal's width on a TTY; unwrapped lines into pipes and files."""

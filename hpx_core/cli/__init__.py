"""The `hpx` command: a thin typer layer over :mod:`hpx_core.api`.

Command modules attach themselves to :data:`hpx_core.cli.app.app` when imported below;
:func:`main` turns every :class:`~hpx_core.errors.HpxError` into two readable lines and an exit
code, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from hpx_core.cli.app import app
from hpx_core.cli.extensions import ExtendedGroup
from hpx_core.cli.stopping import interruptible, stopped_error
from hpx_core.errors import HpxError

# commands
from hpx_core.cli import main_commands as _main_commands  # noqa: F401  isort: skip
from hpx_core.cli import analyze as _analyze  # noqa: F401  isort: skip
from hpx_core.cli import sources as _sources  # noqa: F401  isort: skip
from hpx_core.cli import boards as _boards  # noqa: F401  isort: skip
from hpx_core.cli import build as _build  # noqa: F401  isort: skip
from hpx_core.cli import run as _run  # noqa: F401  isort: skip
from hpx_core.cli import selftest as _selftest  # noqa: F401  isort: skip
from hpx_core.cli import results as _results  # noqa: F401  isort: skip
from hpx_core.cli import compare as _compare  # noqa: F401  isort: skip
from hpx_core.cli import results_show as _results_show  # noqa: F401  isort: skip
from hpx_core.cli import verify_kernels as _verify_kernels  # noqa: F401  isort: skip
from hpx_core.cli import probes as _probes  # noqa: F401  isort: skip
from hpx_core.cli import places as _places  # noqa: F401  isort: skip
from hpx_core.cli import matrix as _matrix  # noqa: F401  isort: skip
from hpx_core.cli import prepare as _prepare  # noqa: F401  isort: skip
from hpx_core.cli import validate as _validate  # noqa: F401  isort: skip


# Options whose value may be left out (``--check-layers`` means ``--check-layers=first``):
# typer has no optional option values, so the bare flag is spelled out before parsing.
OPTIONAL_VALUES = {"--check-layers": "first"}
INTERRUPTED = 130  # typer's exit status for a KeyboardInterrupt that reached it


def spell_out(args: Sequence[str]) -> list[str]:
    """``args`` with every bare optional-value option given its default value."""
    return [f"{a}={OPTIONAL_VALUES[a]}" if a in OPTIONAL_VALUES else a for a in args]


def _said(error: HpxError) -> int:
    """Print ``error`` as its two lines; its exit code."""
    typer.secho(f"error: {error.message}", fg="red", err=True)
    if error.hint:
        typer.echo(f"hint: {error.hint}", err=True)
    return error.exit_code


def main(argv: Sequence[str] | None = None, *, freeze_loaded: bool = False) -> int:
    """Run the CLI. As the console script it exits; called with ``argv`` it returns the code.
    ``freeze_loaded``: the console script's own (:mod:`hpx_core.console`), not for a process
    that goes on after the command."""
    ExtendedGroup.freeze_loaded = freeze_loaded
    try:
        with interruptible():
            args = spell_out(sys.argv[1:] if argv is None else argv)
            app(args=args, prog_name="hpx")
        code = 0
    except HpxError as error:
        code = _said(error)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        stopped = stopped_error() if code == INTERRUPTED else None
        code = _said(stopped) if stopped is not None else code
    if argv is None:
        sys.exit(code)
    return code

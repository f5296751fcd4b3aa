"""The ``hpx`` console script: one short-lived process, with the collector tuned for it.

Starting, the process makes a few tens of thousands of long-lived objects (modules, attrs
classes, the plugins). With Python's default thresholds the collector walks them again and
again while they are made, and the interpreter's last collections at exit walk them once more
(about a tenth of a second of a warm ``hpx profile``). So the first generation is larger from
the first import on (a larger first generation still bounds the garbage a long run leaves), and
what is loaded once the command is known is frozen: kept out of the collector's walks for good
(:class:`hpx_core.cli.extensions.ExtendedGroup`). What the command makes after that is collected
as usual, at exit too: objects of native bindings (lief's, through nanobind) must be, or
nanobind reports them as leaked.

A warm emulated run gets a head start here too: QEMU starts on the ELF the same command ran
last, before the command line is imported (:mod:`hpx_core.head_start`).

This module is outside :mod:`hpx_core.cli` so that both happen before the command line is
imported.
"""

from __future__ import annotations

import gc
import sys

GC_THRESHOLDS = (50_000, 50, 100)


def main() -> None:
    """Run ``hpx`` with the process's arguments and exit with its code."""
    gc.set_threshold(*GC_THRESHOLDS)
    from hpx_core import head_start

    head_start.start(sys.argv[1:])
    try:
        from hpx_core.cli import main as run_cli

        run_cli(freeze_loaded=True)
    finally:
        head_start.cancel()

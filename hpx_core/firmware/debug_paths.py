"""What an app's debug information names instead of the folders it was built in.

An app's work folder differs from cell to cell and from machine to machine, and every object
used to record it (the compile folder, the sources, the include folders). So no two work
folders could share a compiled unit through the compiler cache: a matrix compiled the same
harness eight times, and the same model's data once per backend. Now each app names its own
folder relative to its build folder (``../project/...``, the compile folder ``.``) and the
cache as :data:`~hpx_core.cachedir.DEBUG_ROOT`, and ccache is given the work folder as its
``base_dir``, which rewrites the same paths the same way: one unit compiled for any work
folder serves all of them, and the same project built in two folders is the same bytes. Only
debug information changes: the code and data of an app are what they were. (Built without
ccache, the app's paths reach the compiler whole and are mapped to the same names, which GCC's
line tables record in another shape: the same code and data, not the same bytes.)

A debugger started in the build folder (where the ELF is) finds the app's sources as they are;
the engine libraries' with ``set substitute-path /hpx-cache <the cache folder>``.
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.cachedir import DEBUG_ROOT, cache_root


def debug_prefix_maps(work_dir: Path, build_dir: Path) -> tuple[str, ...]:
    """The compiler flags recording the cache, ``work_dir`` and ``build_dir`` (inside it) as
    above; the later map wins in GCC and clang, so a work folder inside the cache is named
    relative to its build folder. A folder with ``=`` in its name cannot be mapped (the flag
    splits there), and is left as it is."""
    maps = ((cache_root(), DEBUG_ROOT), (work_dir, ".."), (build_dir, "."))
    return tuple(f"-fdebug-prefix-map={folder.as_posix()}={name}" for folder, name in maps
                 if "=" not in folder.as_posix())

"""hpx's QEMU plugin, compiled with the host's C compiler into the cache and checked to load.

Distributions ship QEMU's plugin loader but not its header, so the plugin declares the part of
the documented API it uses itself (``plugin/qemu_plugin_api.h``) and is built at run time:
once per QEMU version, plugin source and compiler, under a lock, written to a temporary name
and renamed. Before its first use the library is loaded into the QEMU that will run it with
``probe=1`` (the plugin says it loaded, then declines to install), so a QEMU built without
plugin support, or one whose plugin API moved on, is one clear error instead of a failed run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from filelock import FileLock

from hpx_core.sdk import ToolError
from hpx_core.sdk.cache import cache_root
from hpx_core.sdk.passes import QEMU, version_line

SOURCES = ("hpx_insight.c", "hpx_cache.h", "qemu_plugin_api.h")
LOADED = "hpx-insight loads"
CFLAGS = ("-O2", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden", "-Wall",
          "-Werror=implicit-function-declaration")
INSTALL_CC = "install a C compiler for the host (Debian: apt-get install gcc)"
INSTALL_QEMU = ("install a QEMU whose TCG plugins load (Debian 12's qemu-system-arm 7.2 does; "
                "hpx's plugin is written against plugin API version 1)")


def _source_bytes() -> dict[str, bytes]:
    folder = resources.files("hpx_insight") / "plugin"
    return {name: (folder / name).read_bytes() for name in SOURCES}


def host_compiler() -> str:
    """The host's ``cc`` (``$CC`` when set), or one error naming what to install."""
    wanted = os.environ.get("CC", "cc")
    found = shutil.which(wanted)
    if found is None:
        raise ToolError(f"no host C compiler ({wanted}) to build the instruction-profile plugin",
                        INSTALL_CC)
    return found


def qemu_binary() -> str:
    found = shutil.which(QEMU)
    if found is None:
        raise ToolError(f"{QEMU} is not on PATH",
                        "install it (Debian: apt-get install qemu-system-arm)")
    return found


def plugin_key(qemu: str, cc: str) -> str:
    """What the library depends on: QEMU's version, the compiler's and the sources."""
    digest = hashlib.sha256()
    for part in (version_line(qemu) or "unknown qemu", version_line(cc) or "unknown cc",
                 *CFLAGS):
        digest.update(part.encode() + b"\0")
    for name, data in sorted(_source_bytes().items()):
        digest.update(name.encode() + b"\0" + data)
    return digest.hexdigest()[:24]


def plugin_library(root: Path | None = None) -> Path:
    """The compiled plugin for the QEMU on PATH, built now if the cache lacks it."""
    qemu, cc = qemu_binary(), host_compiler()
    folder = (root or cache_root()) / "insight"
    library = folder / f"hpx_insight-{plugin_key(qemu, cc)}.so"
    if library.is_file():
        return library
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / ".build.lock")):
        if not library.is_file():
            _compile(cc, folder, library)
            check_loads(qemu, library)
    return library


def _compile(cc: str, folder: Path, library: Path) -> None:
    work = folder / f".build-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        for name, data in _source_bytes().items():
            (work / name).write_bytes(data)
        temp = work / library.name
        done = subprocess.run([cc, *CFLAGS, "-o", str(temp), str(work / SOURCES[0])],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no output"])[0]
            raise ToolError(f"the host compiler {cc} cannot build the instruction-profile "
                            f"plugin: {first}", INSTALL_CC)
        temp.replace(library)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_loads(qemu: str, library: Path) -> None:
    """Load ``library`` into ``qemu`` and refuse a QEMU that cannot run it."""
    argv = [qemu, "-M", "none", "-display", "none", "-monitor", "none",
            "-plugin", f"file={library},probe=1"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ToolError(f"{QEMU} did not answer when loading the plugin", INSTALL_QEMU) from None
    if LOADED not in done.stderr:
        said = [line for line in done.stderr.splitlines() if "module ui" not in line]
        library.unlink(missing_ok=True)
        raise ToolError(f"{QEMU} ({version_line(qemu) or 'unknown version'}) cannot load TCG "
                        f"plugins: {(said or ['no answer'])[-1].strip()}", INSTALL_QEMU)

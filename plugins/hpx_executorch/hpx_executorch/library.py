"""The ExecuTorch runtime as prebuilt archives in content-addressed cache folders: the core
once per pins and flags, the operators' registrations once per operator set.

The core (runtime, data loader, the provider's kernels and the Cortex-M operators' kernels)
depends on the provider, the ns-ops switch, the CPU flags, the toolchain and the source pins:
every program shares it. It is kept as units, and only those a program can link are compiled
(:mod:`.core_units`; ``kernels: all`` builds every unit, one archive per target). The operators a
program registers are a small library of their own, keyed by the core's inputs plus the operator
sets: the portable ones (``portable_kernels`` with only the selected ``op_*.cpp`` files,
``executorch_selected_kernels`` with their registration) and, with the arm provider, the
Cortex-M ones' registration (``cortex_m_ops_lib``; the ns provider registers every Cortex-M
operator in the core, whose convolutions carry the weight-sum ABI that proves the provider). A
program with other sets compiles only those files, in the build tree kept beside the core
(:mod:`.seed`). Each folder is made in a temporary
folder renamed into place under a file lock; archives, the generated headers the glue needs and
a manifest are kept.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.sdk import BuildError, LibraryUse, SourceSet, get_logger
from hpx_core.sdk.cache import cache_root
from hpx_core.sdk.enginelib import (
    CachedFolder,
    UnitLibrary,
    cached_folder,
    cmake_quote,
    ensure_units,
    identity_key,
    source_identity,
    source_roots,
    toolchain_identity,
)
from hpx_core.sdk.enginelib.cached import BUILD_LOG, Make, is_cached
from hpx_core.sdk.enginelib.identity import DEBUG_ROOT
from hpx_core.sdk.enginelib.units import Alongside
from hpx_core.sdk.firmware import Toolchain
from hpx_executorch.core_units import core_recipe, needed_sources, portable_helpers
from hpx_executorch.runtime_cmake import RuntimeOptions
from hpx_executorch.seed import (
    build_in_seed,
    copy_archives,
    helper_archives,
    seed_folder,
    seed_lock,
    write_project,
)

log = get_logger()
RECIPE = 6  # 3: etdump and flatccrt (not position-independent); 4: the core and the portable
# operators apart, built in a kept tree; 5: the core keeps the portable kernels' utilities;
# 6: the arm provider's Cortex-M operators registered per program
# The optimization the measured Apollo510 reference ran (docs/cycle-model.md, "The code the
# reference ran"): an NSX app's board flags (-g -O3 -ffast-math) reached every target of the
# runtime after CMake's Release flags, so the last -O was -O3, not the -Os that
# EXECUTORCH_OPTIMIZE_SIZE adds. These come last here for the same reason.
REFERENCE_OPTIMIZATION = ("-O3", "-ffast-math")
COMMON_FLAGS = ("-ffunction-sections", "-fdata-sections", "-fno-unwind-tables",
                "-fomit-frame-pointer", "-funsigned-char", "-g", *REFERENCE_OPTIMIZATION)
# Registration happens in static constructors: these archives are linked whole.
WHOLE_ARCHIVES = ("executorch", "cortex_m_ops_lib", "executorch_selected_kernels",
                  "cortex_m_ns_ops_lib")
UTILITIES_TARGET = "kernels_util_all_deps"  # built with the operators by `kernels: all`
# Helpers the targets need, in their own archives, copied beside both the core and the
# operators: the portable kernels' utilities, which the Cortex-M kernels of the core use too
# (broadcasting), so a program without portable operators still links them. The ETDump's
# flatcc runtime (flatccrt) is a target of the core.
HELPERS = ("libkernels_util",)


def _paths(value: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in value)


def _uses(value: Iterable[LibraryUse]) -> tuple[LibraryUse, ...]:
    return tuple(value)


@attrs.frozen
class RuntimeLibrary:
    """A runtime: its archives in link order, include folders, and how each part was had."""

    key: str
    folder: Path
    archives: tuple[Path, ...] = attrs.field(converter=_paths)
    include_dirs: tuple[Path, ...] = attrs.field(converter=_paths)
    built: bool
    seconds: float
    parts: tuple[LibraryUse, ...] = attrs.field(default=(), converter=_uses)

    def cmake(self, target: str = "hpx_app") -> str:
        """A CMake fragment linking the archives into ``target`` (registrations kept whole)."""
        whole = [a for a in self.archives if a.stem.removeprefix("lib") in WHOLE_ARCHIVES]
        rest = [a for a in self.archives if a not in whole]
        items = ["-Wl,--whole-archive", *(a.as_posix() for a in whole), "-Wl,--no-whole-archive",
                 "-Wl,--start-group", *(a.as_posix() for a in rest), "-Wl,--end-group"]
        body = "\n".join(f"  {cmake_quote(item)}" for item in items)
        return f"target_link_libraries({target} PRIVATE\n{body}\n)\n"


def core_options(options: RuntimeOptions) -> RuntimeOptions:
    """The options without the program's operators: what the core depends on."""
    selected = options.cortex_m_ops is not None
    return attrs.evolve(options, portable_ops=(), cortex_m_ops=() if selected else None)


def runtime_key(sources: SourceSet, options: RuntimeOptions,
                toolchain: Toolchain | None = None, helpers: str = "all") -> str:
    """What changes the archives for ``options`` (``helpers``: the portable kernels' helper
    files compiled, ``all`` or those a program can ``linked``); no board name, no path."""
    doc = {
        "recipe": RECIPE, "options": attrs.asdict(options),
        **({} if helpers == "all" else {"helpers": helpers}),
        "toolchain": toolchain_identity(toolchain), "flags": COMMON_FLAGS,
        **source_identity(sources),
    }
    return identity_key(doc, source_roots(sources))


def _take(build: Path, names: list[str], into: Path, log_file: Path) -> list[str]:
    """Copy the archives ``names`` (all must exist) and the helpers found into ``into``."""
    copied = copy_archives(build, names, into)
    missing = [n for n in names if n not in copied]
    if missing:
        raise BuildError(f"the runtime build made no {missing[0]}", f"see {log_file}")
    return copied + copy_archives(build, helper_archives(build, HELPERS), into)


def include_dirs(sources: SourceSet, folder: Path) -> tuple[Path, ...]:
    """What the glue compiles against: ExecuTorch's headers and the generated schema headers."""
    et = sources.path_of("executorch")
    return (et.parent, et / "runtime/core/portable_type/c10", folder / "include",
            et / "third-party/flatbuffers/include")


@attrs.frozen
class Part:
    """One part of the runtime: how the bundle names it, its key, its archives by name, where
    the glue finds its generated headers, and what getting it took."""

    use: LibraryUse
    archives: Mapping[str, Path]
    folder: Path


def ensure_runtime(sources: SourceSet, options: RuntimeOptions, *, root: Path | None = None,
                   jobs: int = 2, toolchain: Toolchain | None = None,
                   kernels: str = "model") -> RuntimeLibrary:
    """The runtime for ``options``: its core (``kernels='all'``: every unit of it, else the
    units a program can link) and its own operators, each from the cache or built now
    (``jobs`` parallel compiles) with ``toolchain`` (default arm-none-eabi-gcc)."""
    cache = root or cache_root()
    name = f"executorch_{options.provider}"
    core_key = runtime_key(sources, core_options(options), toolchain)
    seed = seed_folder(cache / "engines", f"{name}-{core_key[:20]}")
    flags = (*COMMON_FLAGS, f"-ffile-prefix-map={cache.as_posix()}={DEBUG_ROOT}")

    def make(targets: tuple[str, ...], names: list[str],
             helpers: Callable[[], Sequence[str] | None] | None = None, ahead: int = 0) -> Make:
        """``ahead``: files of ``targets`` compiled already, alongside the core's units."""
        def build(temp: Path, _final: Path) -> Mapping[str, Any]:
            with seed_lock(seed):
                try:
                    done = build_in_seed(seed, sources, options, flags, targets, jobs, toolchain,
                                         helpers() if helpers else None)
                finally:  # where a failed build's log is kept (beside the cache entry)
                    if (seed / "build.log").is_file():
                        shutil.copyfile(seed / "build.log", temp / BUILD_LOG)
                archives = _take(seed / "build", names, temp / "lib", seed / "build.log")
                if not targets:  # the core: the schema headers the glue includes
                    shutil.copytree(seed / "build" / "schema" / "include", temp / "include")
            facts = {**done.facts(), "compiled": done.compiled + ahead}
            return {"options": attrs.asdict(options), "archives": archives, **facts}
        return build

    label = f"executorch runtime ({options.provider})"
    whole = kernels == "all"
    ops_key = runtime_key(sources, options, toolchain, helpers="all" if whole else "linked")
    ops_name = f"{name}_ops"
    helpers: Callable[[], Sequence[str] | None] | None = None
    ahead = 0
    if whole:
        core_names = [f"lib{t}.a" for t in options.core_targets()]
        parts = [_whole(label, core_key, cached_folder(name, core_key, make((), core_names),
                                                       root=cache))]
    else:
        alongside = (operators_alongside(seed, sources, options, flags,
                                         lambda: is_cached(ops_name, ops_key, cache))
                     if options.operator_targets() else None)
        core = ensure_units(
            core_recipe(sources, core_options(options), seed, flags, core_key, toolchain,
                        alongside),
            lambda listing: needed_sources(listing, sources, options.portable_ops,
                                           options.cortex_m_ops),
            "operators: " + ",".join((*options.portable_ops, *(options.cortex_m_ops or ()))),
            root=cache, jobs=jobs)
        parts = [_units(label, core)]
        chosen, ahead = core.chosen, core.alongside

        def helpers() -> Sequence[str] | None:
            return linked_helpers(chosen, sources, options)
    own = options.operator_targets()
    if own:
        ops_names = [f"lib{t}.a" for t in own]
        built = [*own, UTILITIES_TARGET] if whole and options.portable_ops else own
        ops = cached_folder(ops_name, ops_key, make(tuple(built), ops_names, helpers, ahead),
                            root=cache)
        parts.append(_whole(f"executorch operators ({_counted(options)})",
                            ops_key, ops, only=None if whole else ops_names))
    log.info("executorch runtime", built=[p.use.built for p in parts],
             seconds=[round(p.use.seconds, 1) for p in parts])
    return RuntimeLibrary(
        key=_key(parts), folder=parts[0].folder, archives=_link_order(options, parts),
        include_dirs=include_dirs(sources, parts[0].folder),
        built=any(p.use.built for p in parts), seconds=sum(p.use.seconds for p in parts),
        parts=[p.use for p in parts])


def operators_alongside(seed: Path, sources: SourceSet, options: RuntimeOptions,
                        flags: Sequence[str], cached: Callable[[], bool]) -> Alongside:
    """The program's operators built in the Ninja run that compiles the core's units (a cold
    path), unless their library is ``cached``: the seed's project is given the operators and
    the helpers the chosen units can link, as their own build will write it (which then finds
    everything built), and their targets join the units'. Alone, their build would configure
    and generate code on one core and compile a few long files at its end."""
    def alongside(chosen: frozenset[str]) -> Sequence[str]:
        if cached():
            return ()
        write_project(seed, sources, options, flags, linked_helpers(chosen, sources, options))
        return options.operator_targets()
    return alongside


def linked_helpers(chosen: Iterable[str], sources: SourceSet,
                   options: RuntimeOptions) -> Sequence[str] | None:
    """The portable kernels' helpers a program can link (:func:`portable_helpers`); None
    without portable operators, whose project compiles no helper at all."""
    if not options.portable_ops:
        return None
    return portable_helpers(chosen, sources, options.portable_ops)


def _counted(options: RuntimeOptions) -> str:
    """``3 portable, 5 Cortex-M``: the operator sets a program's own library registers."""
    sets = [f"{len(options.portable_ops)} portable" if options.portable_ops else "",
            f"{len(options.cortex_m_ops)} Cortex-M" if options.cortex_m_ops else ""]
    return ", ".join(s for s in sets if s)


def _whole(label: str, key: str, done: CachedFolder, only: list[str] | None = None) -> Part:
    """A part built as archives; ``only`` these of them (the units give the helpers)."""
    facts = done.manifest if done.built else {}
    use = LibraryUse(label, key, done.built, done.seconds, facts.get("compiled", 0),
                     facts.get("compiler_cache"))
    names = [n for n in done.manifest["archives"] if only is None or n in only]
    return Part(use, {n: done.folder / "lib" / n for n in names}, done.folder)


def _units(label: str, units: UnitLibrary) -> Part:
    return Part(attrs.evolve(units.use(), name=label), {a.name: a for a in units.archives},
                units.folder)


def _key(parts: list[Part]) -> str:
    """One key over every part's (the core's alone when there is no other)."""
    if len(parts) == 1:
        return parts[0].use.key
    return hashlib.sha256(":".join(p.use.key for p in parts).encode()).hexdigest()


def _link_order(options: RuntimeOptions, parts: list[Part]) -> list[Path]:
    """The archives of every part in the order of one whole build: targets, then helpers (a
    later part's archive of a name replaces an earlier one's)."""
    where = {n: path for part in parts for n, path in part.archives.items()}
    targets = [f"lib{t}.a" for t in options.targets()]
    helpers = sorted(n for n in where if n not in targets)
    return [where[n] for n in [*targets, *helpers] if n in where]

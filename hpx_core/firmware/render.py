"""Render a firmware project (core harness + board support + counter + engine glue).

Files are written only when their content changes, so an unchanged project keeps its mtimes
and Ninja finds nothing to do.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import jinja2

from hpx_core.boards import Board, get_board
from hpx_core.boards.icount import tick_conversion, wrap_cost_q16
from hpx_core.cachedir import cache_root
from hpx_core.contract import FirmwareContribution, PlannedBuffer
from hpx_core.errors import BuildError
from hpx_core.firmware.cmake_text import cmake_quote
from hpx_core.firmware.debug_paths import debug_prefix_maps
from hpx_core.firmware.support import SupportPlan, support_plan
from hpx_core.firmware.templates import templates_root

HARNESS_SOURCES = ("hpx_main.c", "hpx_counter.c", "hpx_wire.c", "hpx_fault.c", "hpx_check.c",
                   "hpx_memory.c", "hpx_measure.S")
POWER_SOURCES = ("hpx_power.c",)
"""Compiled only in a power build, so every other build is the firmware it was."""
VALIDATE_SOURCES = ("hpx_validate.c",)
"""Compiled only in a validation build (``hpx validate``), for the same reason."""
VALIDATE_WINDOW = 1024 * 1024
"""Bytes of the window a validation build's host writes samples into (hpx_validate.h): a
KWS data set of 2,000 samples fits in one run, a larger one runs in as many as it needs."""
CHECK_DUMP_LIMIT = 1024 * 1024
"""Bytes of tensors ``--check-layers=all`` sends in full at most (differing layers, in order)."""
HARNESS_SWITCHES = frozenset({"HPX_CHECK_LAYERS", "HPX_CHECK_ALL", "HPX_MEMORY_PASS",
                              "HPX_POWER_PASS", "HPX_VALIDATE_PASS"})
"""The harness's compile-time switches an uncounted pass may turn on (``hpx_config.h``): the
layer check (its ``ALL`` mode sends every differing layer in full), the memory pass and the
power pass (which also brings the board's pad driver, :func:`support_plan`) and the
validation pass."""
BOARD_COMMON_SOURCES = ("startup.c", "cmsdk_uart.c", "reset_exit.c")


def _event_names(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


def _switches(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(values)))


@attrs.frozen
class HarnessSettings:
    """Harness knobs compiled into ``hpx_config.h``."""

    engine: str
    iterations: int = 3
    warmup: int = 1
    max_layers: int = 240
    cal_repeats: int = 8
    pmu_events: tuple[str, ...] = attrs.field(default=(), converter=_event_names)
    check_dump_limit: int = CHECK_DUMP_LIMIT
    switches: tuple[str, ...] = attrs.field(default=(), converter=_switches)
    """The :data:`HARNESS_SWITCHES` the run's uncounted passes turned on (the rest are 0)."""
    validate_window: int = VALIDATE_WINDOW

    def __attrs_post_init__(self) -> None:
        unknown = set(self.switches) - HARNESS_SWITCHES
        if (self.iterations < 1 or self.warmup < 0 or not 1 <= self.max_layers <= 4095
                or unknown):
            raise BuildError(
                f"invalid harness settings: {self}",
                "iterations >= 1, warmup >= 0, 1 <= max_layers <= 4095, switches among "
                f"{', '.join(sorted(HARNESS_SWITCHES))}",
            )


BUILD_FOLDER = "build"  # in a project's work folder: where CMake builds (and compiles from)


@attrs.frozen
class Project:
    """A rendered firmware project: its source folder and the files hpx put there."""

    root: Path
    board: Board
    settings: HarnessSettings
    contribution: FirmwareContribution
    files: tuple[str, ...]

    @property
    def source_dir(self) -> Path:
        return self.root / "project"

    @property
    def build_dir(self) -> Path:
        return self.root / BUILD_FOLDER

    @property
    def elf(self) -> Path:
        return self.build_dir / "hpx_app.elf"


def write_if_changed(path: Path, data: bytes) -> None:
    """Write ``data`` (whole, through a rename) unless ``path`` holds it: an unchanged file
    keeps its time, so Ninja rebuilds nothing from it."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _copy_tree(src: Path, dest: Path, written: dict[str, bytes], base: Path) -> None:
    for item in sorted(src.rglob("*")):
        if item.is_file() and not item.name.endswith(".j2"):
            written[(dest / item.relative_to(src)).relative_to(base).as_posix()] = item.read_bytes()


def _env(root: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        bytecode_cache=_compiled_templates(),
    )
    env.filters["cmake"] = cmake_quote
    return env


def _compiled_templates() -> jinja2.BytecodeCache | None:
    """Templates compiled by an earlier run, checked against their source (jinja's own cache,
    written atomically); none when the hpx cache cannot be written."""
    folder = cache_root() / "compiled-templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    # jinja writes a template it compiles without asking: a read-only cache is not offered
    return jinja2.FileSystemBytecodeCache(str(folder)) if os.access(folder, os.W_OK) else None


def _cmake_path(path: Path) -> str:
    return path.as_posix()


def _resolve(engine_dir: Path, entries: Iterable[str]) -> list[str]:
    return [_cmake_path(p if (p := Path(e)).is_absolute() else engine_dir / p) for e in entries]


def _cmakelists(
    env: jinja2.Environment,
    src: Path,
    board: Board,
    settings: HarnessSettings,
    contribution: FirmwareContribution,
    root: Path,
    plan: SupportPlan,
) -> str:
    hpx = src / "hpx"
    engine_dir = src / "engine"
    support = hpx / "boards" / board.support
    common = hpx / "boards" / "common"
    counter = hpx / "counters" / board.counter
    power = POWER_SOURCES if "HPX_POWER_PASS" in settings.switches else ()
    validate = VALIDATE_SOURCES if "HPX_VALIDATE_PASS" in settings.switches else ()
    core_sources = [hpx / "harness" / name
                    for name in (*HARNESS_SOURCES, *power, *validate)]
    core_sources += [hpx / rel for rel in plan.sources]
    core_sources += [
        counter / c.name for c in sorted((root / "counters" / board.counter).glob("*.c"))
    ]
    defines: Mapping[str, str] = dict(sorted({**plan.defines, **contribution.defines}.items()))
    return env.get_template("cmake/CMakeLists.txt.j2").render(
        board=board,
        engine=settings.engine,
        cpu_flags=board.cpu_flags,
        debug_prefix_maps=debug_prefix_maps(src.parent, src.parent / BUILD_FOLDER),
        core_sources=[_cmake_path(p) for p in core_sources],
        engine_sources=_resolve(engine_dir, contribution.sources),
        core_include_dirs=[
            _cmake_path(p)
            for p in (
                hpx / "harness",
                support,
                common,
                hpx / "counters",
                counter,
                *(hpx / d for d in plan.include_dirs),
                *plan.external_include_dirs,
            )
        ],
        link_dirs=[_cmake_path(p) for p in plan.link_dirs],
        link_libraries=[_cmake_path(p) for p in plan.link_libraries],
        engine_include_dirs=_resolve(engine_dir, (".", *contribution.include_dirs)),
        defines=list(defines.items()),
        linker_dir=_cmake_path(support),
        common_dir=_cmake_path(common),
        linker_script=_cmake_path(support / "link.ld"),
        engine_cmake=_cmake_path(engine_dir / "engine.cmake") if contribution.cmake else "",
    )


def render_project(
    work_dir: Path,
    board: Board,
    contribution: FirmwareContribution,
    settings: HarnessSettings,
    *,
    support: SupportPlan | None = None,
) -> Project:
    """Write the CMake project for ``board`` with the engine's glue into ``work_dir/project``.

    Engine ``files`` land under ``project/engine/``; relative ``sources`` and ``include_dirs``
    resolve against that folder, absolute ones (engine source checkouts) stay as they are.
    """
    root = templates_root()
    work_dir = work_dir.resolve()
    src = work_dir / "project"
    if not (root / "counters" / board.counter).is_dir():
        raise BuildError(
            f"board {board.name} needs counter backend {board.counter!r}, which has no template",
            "this hpx version cannot build for that board yet",
        )
    plan = support if support is not None else support_plan(
        board, power="HPX_POWER_PASS" in settings.switches)
    env = _env(root)
    files: dict[str, bytes] = {}
    for folder in plan.folders:
        _copy_tree(root / folder, src / "hpx" / folder, files, src)
    _copy_tree(root / "harness", src / "hpx" / "harness", files, src)
    _copy_tree(root / "boards" / "common", src / "hpx" / "boards" / "common", files, src)
    _copy_tree(root / "boards" / board.support, src / "hpx" / "boards" / board.support, files, src)
    _copy_tree(
        root / "counters" / board.counter, src / "hpx" / "counters" / board.counter, files, src
    )
    for shared in ("hpx_counter_backend.h", "hpx_counter_check.h"):
        files[f"hpx/counters/{shared}"] = (root / "counters" / shared).read_bytes()
    files["hpx/harness/hpx_config.h"] = (
        env.get_template("harness/hpx_config.h.j2")
        .render(**attrs.asdict(settings), wrap_cost_q16=wrap_cost_q16(board),
                tick=tick_conversion(board))
        .encode()
    )
    for rel, text in contribution.files.items():
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise BuildError(f"engine file {rel!r} escapes the project", "use a relative path")
        files[f"engine/{rel}"] = text.encode()
    if contribution.cmake:
        files["engine/engine.cmake"] = contribution.cmake.encode()
    (src / "engine").mkdir(parents=True, exist_ok=True)
    files["CMakeLists.txt"] = _cmakelists(
        env, src, board, settings, contribution, root, plan
    ).encode()
    _remove_stale(src, files)
    for rel, data in files.items():
        write_if_changed(src / rel, data)
    project = Project(work_dir, board, settings, contribution, tuple(sorted(files)))
    write_if_changed(work_dir / PROJECT_FILE, _describe(project))
    return project


PROJECT_FILE = "hpx-project.json"


def _describe(project: Project) -> bytes:
    c = project.contribution
    data = {
        "board": project.board.name,
        "clock": project.board.clock,
        "settings": attrs.asdict(project.settings),
        "files": list(project.files),
        "engine": {
            "sources": list(c.sources),
            "include_dirs": list(c.include_dirs),
            "defines": dict(c.defines),
            "fingerprint_inputs": dict(c.fingerprint_inputs),
            "buffers": [attrs.asdict(b) for b in c.buffers],
        },
    }
    return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode()


def load_project(work_dir: Path) -> Project:
    """A project rendered earlier into ``work_dir`` (for `hpx build`/`hpx run` on it)."""
    path = work_dir.resolve() / PROJECT_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
        engine = data["engine"]
        glue = {
            rel[len("engine/") :]: (path.parent / "project" / rel).read_text("utf-8")
            for rel in data["files"]
            if rel.startswith("engine/")
        }
        cmake = glue.pop("engine.cmake", "")
        contribution = FirmwareContribution(
            files=glue,
            cmake=cmake,
            sources=engine["sources"],
            include_dirs=engine["include_dirs"],
            defines=engine["defines"],
            fingerprint_inputs=engine["fingerprint_inputs"],
            buffers=[PlannedBuffer(**b) for b in engine.get("buffers", [])],
        )
        return Project(
            path.parent,
            get_board(data["board"]).at_clock(data.get("clock", "lp")),
            HarnessSettings(**_settings(data["settings"])),
            contribution,
            tuple(data["files"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BuildError(
            f"{work_dir} holds no hpx firmware project ({error})",
            "create one with `hpx build --board <board>` or `hpx selftest`",
        ) from None


def _settings(saved: dict[str, Any]) -> dict[str, Any]:
    """Settings a project file holds; one an earlier hpx wrote names the passes' switches as
    ``check_layers`` (off, first, all) and ``memory``."""
    check, memory = saved.pop("check_layers", "off"), saved.pop("memory", False)
    if check != "off" or memory:
        saved["switches"] = [*(["HPX_CHECK_LAYERS"] if check != "off" else []),
                             *(["HPX_CHECK_ALL"] if check == "all" else []),
                             *(["HPX_MEMORY_PASS"] if memory else [])]
    return saved


def _remove_stale(src: Path, files: Mapping[str, bytes]) -> None:
    """Drop files a previous render wrote that this one does not (a changed board, say)."""
    if not src.is_dir():
        return
    for item in sorted(src.rglob("*"), reverse=True):
        rel = item.relative_to(src).as_posix()
        if item.is_file() and rel not in files:
            item.unlink()
        elif item.is_dir() and not any(item.iterdir()):
            shutil.rmtree(item)

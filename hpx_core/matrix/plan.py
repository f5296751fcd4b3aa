"""The plan of a matrix: its cells, each with a checked config and an input fingerprint, and
the cells pruned up front with the reason.

A cell is pruned when a license forbids its engine on its board (checked from the pin catalog,
before anything is fetched) or when the board cannot do what it asks (a model format the engine
does not read, PMU events on an emulated board). Every other cell's config is validated here,
so a typo in an engine config variant stops the matrix before any cell runs, at its line.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import all_boards, get_board
from hpx_core.config.schema import FarmSection
from hpx_core.config.validate import Overrides, ValidatedConfig, validate_config
from hpx_core.errors import ConfigError, HpxError, LicenseError
from hpx_core.firmware import get_toolchain
from hpx_core.matrix.cells import Cell, expand
from hpx_core.matrix.spec import LoadedSpec
from hpx_core.pipeline.facts import firmware_settings
from hpx_core.plugins import Registry
from hpx_core.reading import OTHER_FORMAT, model_format
from hpx_core.sources import check_may_run

CELLS = "cells"
WORK_FOLDER = "hpx-work"
FROM_MATRIX = "hpx matrix"


@attrs.frozen
class PlannedCell:
    """A cell to run: its config as overrides (each value's origin in the matrix file), where
    its bundle goes, and the fingerprint of its inputs (model, config, pins, toolchain)."""

    cell: Cell
    overrides: Overrides
    folder: Path
    fingerprint: str
    library_group: tuple[str | None, ...] = ()  # cells that (very likely) share a library


@attrs.frozen
class PrunedCell:
    """A cell that will not run, and why."""

    cell: Cell
    reason: str


@attrs.frozen
class MatrixPlan:
    """Everything ``hpx matrix`` will do, before it does any of it."""

    name: str
    spec_file: Path
    folder: Path
    labels: Mapping[str, Any]
    cells: tuple[PlannedCell, ...]
    pruned: tuple[PrunedCell, ...]
    excluded: int
    place: str | None = None  # the board farm places the runs spread over (any, NAME, tags)
    farm: FarmSection = attrs.field(factory=FarmSection)

    @property
    def library_groups(self) -> dict[tuple[str | None, ...], int]:
        """Engine, backend, variant, board, toolchain -> cells: one engine library each."""
        return dict(Counter(p.library_group for p in self.cells))

    def work(self) -> dict[str, int]:
        """Builds, emulated runs, runs per physical board, build-only cells."""
        counts: Counter[str] = Counter(builds=len(self.cells))
        for planned in self.cells:
            cell = planned.cell
            if cell.build_only:
                counts["build only"] += 1
            elif get_board(cell.board).emulated:
                counts["emulated runs"] += 1
            else:
                counts[f"runs on {cell.board}"] += 1
        return dict(counts)


def plan_matrix(loaded: LoadedSpec, registry: Registry, folder: Path,
                place: str | None = None) -> MatrixPlan:
    """Expand, prune and check every cell of ``loaded``; cells will write under ``folder``;
    ``place`` (else the file's) names the board farm places the runs spread over."""
    spec = loaded.spec
    cells, excluded = expand(spec, registry)
    toolchains = {name: get_toolchain(name) for name in spec.toolchains}
    planned: list[PlannedCell] = []
    pruned: list[PrunedCell] = []
    for cell in cells:
        reason = _prune_reason(cell, loaded, registry)
        if reason is not None:
            pruned.append(PrunedCell(cell, reason))
            continue
        overrides = cell_overrides(cell, loaded, folder)
        validated = _validated(cell, overrides, loaded, registry)
        toolchain = toolchains.get(cell.toolchain) or get_toolchain(cell.toolchain)
        fingerprint = _fingerprint(cell, firmware_settings(validated) | _data(validated),
                                   registry, f"{toolchain.name} {toolchain.identity}")
        planned.append(PlannedCell(cell, overrides, folder / CELLS / cell.id, fingerprint,
                                   library_group(cell, loaded, registry)))
    _check_unique(loaded, [p.cell.id for p in planned] + [p.cell.id for p in pruned])
    return MatrixPlan(spec.name or loaded.file.stem, loaded.file, folder, dict(spec.labels),
                      tuple(planned), tuple(pruned), excluded, place or spec.place,
                      loaded.shared.farm)


def library_group(cell: Cell, loaded: LoadedSpec, registry: Registry) -> tuple[str | None, ...]:
    """Cells that (very likely) link the same engine library: neither the model nor the
    board's name is part of it, only the board's CPU flags (boards alike share one), and of a
    config variant only the options the engine says change its library."""
    flags = " ".join(get_board(cell.board).cpu_flags)
    options = registry.engine(cell.engine).descriptor.library_options
    config = _variant_config(cell, loaded)
    if options is None:
        variant = cell.variant
    else:
        chosen = {k: config[k] for k in options if k in config}
        variant = json.dumps(chosen, sort_keys=True, default=str) if chosen else None
    return (cell.engine, cell.backend, variant, flags, cell.toolchain)


def _variant_config(cell: Cell, loaded: LoadedSpec) -> Mapping[str, Any]:
    for engine in loaded.spec.engines:
        if engine.type == cell.engine and cell.variant in engine.configs:
            return engine.configs[cell.variant]
    return {}


def _check_unique(loaded: LoadedSpec, ids: list[str]) -> None:
    """Cell ids name folders: two cells may not share one (labels that differ only in
    characters a folder name cannot hold, say)."""
    twice = sorted(i for i, n in Counter(ids).items() if n > 1)
    if twice:
        raise ConfigError(f"{loaded.file}: several cells would be named {twice[0]!r}",
                          "give the models (label) or engine config variants distinct names")


def _prune_reason(cell: Cell, loaded: LoadedSpec, registry: Registry) -> str | None:
    board = get_board(cell.board)
    try:
        check_may_run(registry.catalog, cell.engine, cell.backend, board, all_boards().values())
    except LicenseError as error:
        return error.message
    formats = registry.engine(cell.engine).descriptor.model_formats
    found = model_format(cell.model.path, registry)
    if found is not None and found not in formats:
        what = "this file" if found == OTHER_FORMAT else f"{found} models"
        return f"engine {cell.engine!r} reads {', '.join(formats)} models, not {what}"
    if board.emulated and loaded.shared.profiling.counters:
        return f"{board.name} counts instructions under emulation: no PMU events to count"
    return None


def cell_overrides(cell: Cell, loaded: LoadedSpec, folder: Path) -> dict[str, tuple[Any, str]]:
    """The cell's profile config as overrides: its axes, then the shared settings."""
    spec, document = loaded.spec, loaded.document

    def at(dotted: str) -> str:
        return str(document.locate(dotted) or loaded.file)

    model = spec.models.index(cell.model)
    engine = next(i for i, e in enumerate(spec.engines) if e.type == cell.engine)
    board = next((f"boards.{i}" for i, b in enumerate(spec.boards) if b.name == cell.board),
                 "include")  # a board only an include rule names
    found: dict[str, tuple[Any, str]] = {
        "model.path": (str(cell.model.path), at(f"models.{model}")),
        "engine.type": (cell.engine, at(f"engines.{engine}")),
        "engine.backend": (cell.backend, at(f"engines.{engine}")),
        "target.board": (cell.board, at(board)),
        "target.toolchain": (cell.toolchain, at("toolchains")),
        "output.dir": (str(folder / CELLS / cell.id), FROM_MATRIX),
        "build.work_dir": (str(folder.parent / WORK_FOLDER), FROM_MATRIX),
    }
    variant = f"engines.{engine}.configs.{cell.variant}"
    found |= {f"engine.config.{k}": (v, at(f"{variant}.{k}"))
              for k, v in cell.engine_config.items()}
    for dotted, value in _leaves(document.get("profile") or {}):
        if dotted == "build.work_dir":
            value = str(loaded.file.parent / value)
        found[dotted] = (value, at(f"profile.{dotted}"))
    return {k: v for k, v in found.items() if v[0] is not None}


def _leaves(tree: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    leaves: list[tuple[str, Any]] = []
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and dotted != "engine.config":
            leaves += _leaves(value, f"{dotted}.")
        else:
            leaves.append((dotted, list(value) if isinstance(value, list) else value))
    return leaves


def _validated(cell: Cell, overrides: Overrides, loaded: LoadedSpec, registry: Registry) -> Any:
    """The cell's config checked by the core and its engine, errors located in the file."""
    try:
        return validate_config(None, overrides, registry)
    except ConfigError as error:
        spec = loaded.spec
        engine = next(i for i, e in enumerate(spec.engines) if e.type == cell.engine)
        place = f"engines.{engine}.configs.{cell.variant}" if cell.variant else f"engines.{engine}"
        raise ConfigError(f"cell {cell.id}: {error.message}", error.hint,
                          loaded.document.locate(place)) from None


def _data(validated: ValidatedConfig) -> dict[str, str]:
    """The digest of the cell's validation data set, when it has one."""
    section = validated.config.validation
    if section.data is None:
        return {}
    from hpx_core.validation.data import data_digest

    labels = Path(section.labels) if section.labels is not None else None
    return {"validation.data.sha256": data_digest(Path(section.data), labels)}


def _fingerprint(cell: Cell, settings: Mapping[str, Any], registry: Registry,
                 toolchain: str) -> str:
    """SHA-256 over the model's bytes, the firmware settings, the pinned commits the engine
    and the board's family use, and the toolchain's version."""
    catalog = registry.catalog
    try:
        pins = [(p.name, p.commit) for p in catalog.pins_for(cell.engine, cell.backend)]
        pins += [(p.name, p.min_version or "") for p in catalog.packages_for(cell.engine)]
    except HpxError:
        pins = []
    family = get_board(cell.board).family
    if family in catalog.boards:
        pins += [(p.name, p.commit) for p in catalog.pins_for_board(family)]
    document = {
        "model": hashlib.sha256(cell.model.path.read_bytes()).hexdigest(),
        "config": settings, "pins": sorted(pins), "toolchain": toolchain,
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()

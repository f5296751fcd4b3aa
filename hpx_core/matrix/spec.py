"""A matrix file: the axes (models, engines with backends and config variants, boards,
toolchains), the profile settings every cell shares, include/exclude rules, labels, and the
board farm places the runs may spread over (``place``).

It is read like a profile config (:class:`~hpx_core.config.ConfigDocument`): strict types, and
every error names ``FILE:LINE:COL``. Lists may use a short form (``boards: [qemu-m55]``,
``models: [kws.tflite]``); paths are relative to the file.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from hpx_core.boards import get_board
from hpx_core.config import ConfigDocument, ProfileConfig
from hpx_core.config.schema import Toolchain
from hpx_core.errors import ConfigError, HpxError
from hpx_core.farm.places import PlaceChoice
from hpx_core.firmware.toolchain import DEFAULT_TOOLCHAIN
from hpx_core.plugins import Registry
from hpx_core.suggest import did_you_mean

SCHEMA = 1
TOOLCHAINS = typing.get_args(Toolchain)
# Settings a cell takes from the axes or the matrix, never from the shared `profile` section.
SET_BY_THE_MATRIX = ("engine", "target.board", "target.toolchain", "target.place", "model.path",
                     "output.dir")
_SHORT_FORMS = {"models": "path", "engines": "type", "boards": "name"}


@attrs.frozen
class ModelAxis:
    """A model file and the label its cells are named by (default: the file's stem)."""

    path: Path
    label: str | None = None

    @property
    def name(self) -> str:
        return self.label or self.path.stem


@attrs.frozen
class EngineAxis:
    """An engine, the backends to run (none: its default) and ``engine.config`` variants by
    name (none: the engine's defaults)."""

    type: str
    backends: tuple[str, ...] = ()
    configs: dict[str, dict[str, Any]] = attrs.field(factory=dict)


@attrs.frozen
class BoardAxis:
    """A board; ``build_only`` cells stop after the checked build (no board needed)."""

    name: str
    build_only: bool = False


@attrs.frozen
class CellRule:
    """Selects cells by any of their coordinates (an exclude rule), or names one (include)."""

    model: str | None = None
    engine: str | None = None
    backend: str | None = None
    config: str | None = None
    board: str | None = None
    toolchain: str | None = None


@attrs.frozen
class MatrixSpec:
    """A whole matrix file, structured."""

    hpx_matrix: int
    models: tuple[ModelAxis, ...]
    engines: tuple[EngineAxis, ...]
    boards: tuple[BoardAxis, ...]
    toolchains: tuple[str, ...] = (DEFAULT_TOOLCHAIN,)
    profile: dict[str, Any] = attrs.field(factory=dict)
    include: tuple[CellRule, ...] = ()
    exclude: tuple[CellRule, ...] = ()
    labels: dict[str, Any] = attrs.field(factory=dict)
    name: str = ""
    place: str | None = None  # any, NAME or KEY=VALUE,...: the farm places runs spread over


@attrs.frozen
class LoadedSpec:
    """The spec, the document it came from (for located errors and origins), and the shared
    profile settings checked as a profile config."""

    spec: MatrixSpec
    document: ConfigDocument
    shared: ProfileConfig

    @property
    def file(self) -> Path:
        assert self.document.file is not None
        return self.document.file


def load_spec(file: Path, registry: Registry) -> LoadedSpec:
    """Read and check a matrix file; a ConfigError points at the offending line."""
    if not file.is_file():
        raise ConfigError(f"no matrix file {file}", "pass the path of a matrix YAML file")
    document = ConfigDocument.load(file)
    if document.get("hpx_matrix") is None:
        raise ConfigError(f"{file} is not a matrix file (no 'hpx_matrix: {SCHEMA}')",
                          "a matrix file starts with 'hpx_matrix: 1' (see examples/matrix/)")
    _expand_short_forms(document)
    spec = document.structure(MatrixSpec)
    spec = attrs.evolve(spec, models=tuple(
        attrs.evolve(m, path=(file.parent / m.path).resolve()) for m in spec.models))
    _check_axes(spec, document, registry)
    return LoadedSpec(spec, document, _shared_settings(document))


def _expand_short_forms(document: ConfigDocument) -> None:
    """``- qemu-m55`` in a list of mappings means ``- name: qemu-m55`` (same position)."""
    for axis, key in _SHORT_FORMS.items():
        items = document.tree.get(axis)
        if not isinstance(items, CommentedSeq):
            continue
        for index, item in enumerate(items):
            if isinstance(item, str):
                line, column = items.lc.item(index)
                expanded = CommentedMap({key: item})
                expanded.lc.add_kv_line_col(key, [line, column, line, column])
                items[index] = expanded


def _check_axes(spec: MatrixSpec, document: ConfigDocument, registry: Registry) -> None:
    if spec.hpx_matrix != SCHEMA:
        raise document.error("hpx_matrix", f"unsupported matrix schema {spec.hpx_matrix}",
                             f"this hpx reads 'hpx_matrix: {SCHEMA}'")
    for axis in ("models", "engines", "boards", "toolchains"):
        if not getattr(spec, axis):
            raise document.error(axis, "must list at least one entry")
    for i, model in enumerate(spec.models):
        if not model.path.is_file():
            raise document.error(f"models.{i}.path", f"no model file {model.path}",
                                 "paths are relative to the matrix file")
    _unique(document, "models", [m.name for m in spec.models], "label")
    _check_folder_names(spec, document)
    for i, engine in enumerate(spec.engines):
        _check_engine(document, registry, i, engine)
    for i, board in enumerate(spec.boards):
        try:
            get_board(board.name)
        except HpxError as error:
            raise document.error(f"boards.{i}.name", error.message, error.hint) from None
    _unique(document, "boards", [b.name for b in spec.boards], "name")
    for i, toolchain in enumerate(spec.toolchains):
        if toolchain not in TOOLCHAINS:
            raise document.error(f"toolchains.{i}", f"unknown toolchain {toolchain!r}"
                                 + did_you_mean(toolchain, TOOLCHAINS),
                                 f"known: {', '.join(TOOLCHAINS)}")
    for key, value in spec.labels.items():
        if not isinstance(value, str | int | float | bool):
            raise document.error(f"labels.{key}", "a label is a string or a number")
    _check_rules(spec, document)
    if spec.place is not None:
        try:
            PlaceChoice.parse(spec.place)
        except HpxError as error:
            raise document.error("place", error.message, error.hint) from None


def _check_folder_names(spec: MatrixSpec, document: ConfigDocument) -> None:
    """The matrix's name, model labels and config names become folder names: each must be
    one plain path component, so no name reaches outside the matrix folder."""
    named = [("name", spec.name)] if spec.name else []
    named += [(f"models.{i}.label", m.name) for i, m in enumerate(spec.models)]
    named += [(f"engines.{i}.configs.{key}", key) for i, e in enumerate(spec.engines)
              for key in e.configs]
    for field, value in named:
        if not plain_component(value):
            raise document.error(field, f"{value!r} is not a plain folder name",
                                 "it names a folder of the matrix: no '/', '\\', leading "
                                 "'.' or control characters")


def plain_component(value: str) -> bool:
    """``value`` is one path component of its own: not empty, no separator, not hidden."""
    return (bool(value) and not value.startswith(".") and "/" not in value
            and "\\" not in value and all(ord(c) >= 32 for c in value))


def _check_engine(document: ConfigDocument, registry: Registry, i: int,
                  engine: EngineAxis) -> None:
    try:
        entry = registry.engine(engine.type)
    except HpxError as error:
        raise document.error(f"engines.{i}.type", error.message, error.hint) from None
    offered = entry.descriptor.backends
    for j, backend in enumerate(engine.backends):
        if backend not in offered:
            raise document.error(
                f"engines.{i}.backends.{j}",
                f"engine {engine.type!r} has no backend {backend!r}"
                + did_you_mean(backend, offered),
                "its backends: " + (", ".join(offered) or "none"))


def _unique(document: ConfigDocument, axis: str, names: list[str], what: str) -> None:
    for i, name in enumerate(names):
        if name in names[:i]:
            raise document.error(f"{axis}.{i}", f"{name!r} is listed twice",
                                 f"give each entry its own {what}")


def _check_rules(spec: MatrixSpec, document: ConfigDocument) -> None:
    known = {
        "model": [m.name for m in spec.models],
        "engine": [e.type for e in spec.engines],
        "backend": [b for e in spec.engines for b in e.backends],
        "config": [c for e in spec.engines for c in e.configs],
        "board": [b.name for b in spec.boards],
        "toolchain": list(spec.toolchains),
    }
    for kind in ("include", "exclude"):
        for i, rule in enumerate(getattr(spec, kind)):
            for field, value in attrs.asdict(rule).items():
                allowed = known[field]
                if kind == "include" and field in ("backend", "board"):
                    continue  # any backend its engine offers, any board (checked per cell)
                if value is not None and value not in allowed:
                    raise document.error(
                        f"{kind}.{i}.{field}", f"no {field} {value!r} in the matrix"
                        + did_you_mean(str(value), allowed),
                        f"{field}s here: {', '.join(map(str, allowed)) or 'none'}")
            if kind == "include" and None in (rule.model, rule.engine, rule.board):
                raise document.error(f"include.{i}", "an included cell names its model, "
                                     "engine and board", "add the missing ones")
            if kind == "include" and rule.board is not None:
                try:
                    get_board(rule.board)
                except HpxError as error:
                    raise document.error(f"include.{i}.board", error.message,
                                         error.hint) from None


def _shared_settings(document: ConfigDocument) -> ProfileConfig:
    for dotted in SET_BY_THE_MATRIX:
        if document.get(f"profile.{dotted}") is not None:
            raise document.error(f"profile.{dotted}", "is set for each cell by the matrix",
                                 "use the matrix axes (models, engines, boards, toolchains), "
                                 "its place (--place) and --output-dir")
    return document.structure(ProfileConfig, "profile")

"""The cells of a matrix: every combination of the axes, minus the excluded, plus the included.

A cell is one profile run: a model, an engine with backend and config variant, a board and a
toolchain. Its id is also its folder name in the matrix folder.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from hpx_core.errors import ConfigError
from hpx_core.firmware.toolchain import DEFAULT_TOOLCHAIN
from hpx_core.matrix.spec import (
    BoardAxis,
    CellRule,
    EngineAxis,
    MatrixSpec,
    ModelAxis,
)
from hpx_core.plugins import Registry

SEPARATOR = "--"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@attrs.frozen
class Cell:
    """One profile run of the matrix."""

    model: ModelAxis
    engine: str
    backend: str | None
    variant: str | None  # the name of its engine.config variant (None: the engine's defaults)
    engine_config: Mapping[str, Any]
    board: str
    toolchain: str
    build_only: bool = False

    @property
    def id(self) -> str:
        """``model--engine-backend[-variant]--board[--toolchain]``, safe as a folder name."""
        engine = "-".join(p for p in (self.engine, self.backend, self.variant) if p)
        parts = [self.model.name, engine, self.board]
        if self.toolchain != DEFAULT_TOOLCHAIN:
            parts.append(self.toolchain)
        return SEPARATOR.join(_UNSAFE.sub("_", p) for p in parts)

    @property
    def configuration(self) -> str:
        """Everything but the model: a column of the matrix report."""
        return self.id.split(SEPARATOR, 1)[1]

    def coordinates(self) -> dict[str, str | None]:
        """The cell's value on each axis, by the names rules use."""
        return {"model": self.model.name, "engine": self.engine, "backend": self.backend,
                "config": self.variant, "board": self.board, "toolchain": self.toolchain}

    def matches(self, rule: CellRule) -> bool:
        mine = self.coordinates()
        return all(value is None or mine[field] == value
                   for field, value in attrs.asdict(rule).items())


MAX_CELLS = 10_000
"""The most cells one matrix plans (10,000 plan in about 9 s and run for days)."""


def expand(spec: MatrixSpec, registry: Registry) -> tuple[list[Cell], int]:
    """The cells in file order (included ones last), and how many the exclude rules removed
    from the combinations of the axes. A product over :data:`MAX_CELLS` is refused before it
    is made: its planning alone would take minutes, its runs weeks."""
    size = len(spec.models) * len(spec.boards) * len(spec.toolchains) * sum(
        len(_backends(engine, registry)) * len(_variants(engine)) for engine in spec.engines)
    if size > MAX_CELLS:
        raise ConfigError(f"the matrix's axes make {size:,} cells, more than the {MAX_CELLS:,} "
                          "one matrix plans",
                          "split it into several matrix files, or list fewer models, configs "
                          "or boards")
    product = list(_product(spec, registry))
    kept = [c for c in product if not any(c.matches(r) for r in spec.exclude)]
    excluded = len(product) - len(kept)
    for rule in spec.include:
        kept += [c for c in _included(spec, registry, rule) if c not in kept]
    return kept, excluded


def _product(spec: MatrixSpec, registry: Registry) -> Iterator[Cell]:
    for model, engine, board, toolchain in itertools.product(
            spec.models, spec.engines, spec.boards, spec.toolchains):
        for backend, (variant, config) in itertools.product(
                _backends(engine, registry), _variants(engine)):
            yield Cell(model, engine.type, backend, variant, config, board.name, toolchain,
                       board.build_only)


def _included(spec: MatrixSpec, registry: Registry, rule: CellRule) -> Iterator[Cell]:
    model = next(m for m in spec.models if m.name == rule.model)
    board = next((b for b in spec.boards if b.name == rule.board), BoardAxis(str(rule.board)))
    axis = next(e for e in spec.engines if e.type == rule.engine)
    backends = [rule.backend] if rule.backend else _backends(axis, registry)[:1]
    variants = [v for v in _variants(axis) if rule.config in (None, v[0])][:1]
    toolchain = rule.toolchain or spec.toolchains[0]
    for backend, (variant, config) in itertools.product(backends, variants):
        yield Cell(model, axis.type, backend, variant, config, board.name, toolchain,
                   board.build_only)


def _backends(engine: EngineAxis, registry: Registry) -> list[str | None]:
    if engine.backends:
        return list(engine.backends)
    offered = registry.engine(engine.type).descriptor.backends
    return [offered[0] if offered else None]


def _variants(engine: EngineAxis) -> list[tuple[str | None, Mapping[str, Any]]]:
    if not engine.configs:
        return [(None, {})]
    return [(name, dict(values)) for name, values in engine.configs.items()]

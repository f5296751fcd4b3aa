"""The ExecuTorch view of a ``.pte`` file: its execution plans, their operator tables and
instructions.

The reader (:mod:`.pte_reader`) hands the core the records every format shares and puts this
view in ``ModelInfo.program`` as JSON-ready data, so a kept analysis carries it too;
:func:`program_of` makes the records again, once per program (:func:`model_view`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import attrs
import cattrs

from hpx_core.sdk import model_view
from hpx_core.sdk.models import ModelInfo


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in value)


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in value)


def _operator_refs(value: Iterable[OperatorRef]) -> tuple[OperatorRef, ...]:
    return tuple(value)


def _plans(value: Iterable[ExecutionPlan]) -> tuple[ExecutionPlan, ...]:
    return tuple(value)


@attrs.frozen
class OperatorRef:
    """An entry of an ExecuTorch execution plan's operator table."""

    name: str
    overload: str

    @property
    def qualified_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


InstructionKind = Literal["kernel", "delegate", "move", "jump_false", "free"]


@attrs.frozen
class Instruction:
    """One ExecuTorch instruction.

    ``target``: the operator (kernel), delegate (delegate) or instruction (jump_false) index;
    ``args``: the value indices it reads and writes (for jump_false, the condition).
    """

    kind: InstructionKind
    target: int | None = None
    args: tuple[int, ...] = attrs.field(default=(), converter=_ints)


def _chains(value: Iterable[Iterable[Instruction]]) -> tuple[tuple[Instruction, ...], ...]:
    return tuple(tuple(chain) for chain in value)


@attrs.frozen
class ExecutionPlan:
    """One method of an ExecuTorch program (``forward`` for exported models)."""

    name: str
    operators: tuple[OperatorRef, ...] = attrs.field(converter=_operator_refs)
    chains: tuple[tuple[Instruction, ...], ...] = attrs.field(converter=_chains)
    delegates: tuple[str, ...] = attrs.field(converter=_strs)
    non_const_buffer_sizes: tuple[int, ...] = attrs.field(converter=_ints)
    value_count: int


@attrs.frozen
class PteProgram:
    """The ExecuTorch-specific view of a ``.pte`` file."""

    version: int
    plans: tuple[ExecutionPlan, ...] = attrs.field(converter=_plans)
    segment_count: int


_CONVERTER = cattrs.Converter(unstruct_collection_overrides={Sequence: list})


def plain(program: PteProgram) -> dict[str, Any]:
    """``program`` as JSON-ready data (lists, as a kept analysis reads it back)."""
    data: dict[str, Any] = _CONVERTER.unstructure(program)
    return data


def _structured(model: ModelInfo) -> PteProgram:
    return _CONVERTER.structure(model.program, PteProgram)


def program_of(model: ModelInfo) -> PteProgram | None:
    """The program's view of ``model`` (None for a model another format's reader read)."""
    return None if model.program is None else model_view(model, _structured)


def kept_program(model: ModelInfo, program: PteProgram) -> None:
    """Hand the view the reader made to :func:`program_of`, so it is not made again."""
    model_view(model, _structured, known=program)

"""heliaAOT in-process: the installed compiler's version, its platform, and one compilation.

The compiler is a Python package (``helia_aot``); hpx calls its API (``AotConverter``) rather
than its command line, so failures arrive as exceptions with the compiler's own message and the
code-generation context (operators, memory plan) is at hand to keep in the bundle. Everything
the compiler prints (its rich logging, tracebacks included) goes to the run's log, never to the
user's terminal; its refusals become one line of cause and a hint (:mod:`.refusal`).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from hpx_core.sdk import ConfigError
from hpx_core.sdk.enginelib import tool_output_to
from hpx_core.sdk.firmware import Board
from hpx_heliaaot.refusal import refusal
from hpx_heliaaot.versions import require_helia_aot

MODULE_TYPE = "cmake"


@attrs.frozen
class Operator:
    """One operator as the compiler names it; ``identity`` is ``OP_TYPE:op_id``."""

    op_id: int
    op_type: str
    name: str

    @property
    def identity(self) -> str:
        return f"{self.op_type}:{self.op_id}"


def _ops(value: list[Operator]) -> tuple[Operator, ...]:
    return tuple(value)


@attrs.frozen
class AotModule:
    """A generated module: its folder, operators in run order, and the memory plan."""

    root: Path
    operators: tuple[Operator, ...] = attrs.field(converter=_ops)
    memory_plan: dict[str, Any]
    platform: str
    version: str


def platform_cpu(name: str) -> str:
    """The CPU of a heliaAOT platform; a ConfigError when the compiler does not know it."""
    from helia_aot.cli.defines import PlatformArgs  # type: ignore[import-untyped]
    from helia_aot.platforms import resolve_platform  # type: ignore[import-untyped]

    try:
        platform: Any = resolve_platform(PlatformArgs(name=name))
    except Exception as exc:  # the compiler's own lookup error, whatever its type
        raise ConfigError(f"heliaAOT does not know the platform {name!r}: {exc}",
                          "set engine.config.platform to a heliaAOT platform for this board"
                          ) from None
    return str(platform.cpu)


def check_platform(board: Board, platform: str | None) -> str:
    """The platform to generate for; refuses code for another CPU than the board's."""
    chosen = platform or board.name
    cpu = platform_cpu(chosen)
    if cpu != board.core:
        mve = " (MVE/Helium code a Cortex-M4 cannot execute)" if "m55" in cpu else ""
        raise ConfigError(
            f"heliaAOT platform {chosen!r} generates code for {cpu}{mve}, but board "
            f"{board.name} is a {board.core}",
            f"convert for a {board.core} platform: set engine.config.platform (e.g. "
            f"{board.name} when heliaAOT knows it)",
        )
    return chosen


def _arenas(usages: Any) -> dict[str, dict[str, Any]]:
    return {
        str(getattr(mem, "value", mem)): {
            "total_size": int(u.total_size), "used": int(u.used), "alignment": int(u.alignment),
            "source_memory": str(getattr(u.source_memory, "value", u.source_memory))}
        for mem, u in usages.items()
    }


def _plan(plan: Any) -> dict[str, Any]:
    """The memory plan as plain data: arenas per role and memory, every tensor's placement."""
    tensors = {
        str(tid): {"memory": str(getattr(a.memory, "value", a.memory)), "offset": int(a.offset),
                   "size": int(a.size), "role": str(getattr(a.binding.role, "value", ""))}
        for tid, a in plan.tensor_allocs.items()
    }
    return {"arenas": {"scratch": _arenas(plan.arena_usages),
                       "constant": _arenas(plan.constant_arenas),
                       "persistent": _arenas(plan.persistent_arenas)},
            "tensors": tensors}


def _operators(context: Any) -> list[Operator]:
    found = []
    for op in context.operators:
        op_type = getattr(op.op.op_type, "value", op.op.op_type)
        found.append(Operator(int(op.id), str(op_type), str(op.name)))
    return found


def _convert(model: Path, temp: Path, *, prefix: str, module_name: str, platform: str,
             tensor_rules: list[dict[str, Any]]) -> Any:
    from helia_aot import AotConverter  # type: ignore[import-untyped]
    from helia_aot.cli.defines import (
        ConvertArgs,
        MemoryArgs,
        ModelArgs,
        ModuleArgs,
        PlatformArgs,
    )

    args = ConvertArgs(
        model=ModelArgs(path=model),
        module=ModuleArgs(path=temp, type=MODULE_TYPE, name=module_name, prefix=prefix),
        platform=PlatformArgs(name=platform), memory=MemoryArgs(tensors=tensor_rules),
        verbose=0)
    return AotConverter(args).convert()


@contextlib.contextmanager
def _scratch_in(folder: Path) -> Iterator[None]:
    """The compiler's own scratch folders (heliaAOT makes one with ``tempfile.mkdtemp`` per
    conversion and never removes it) made inside ``folder``, which hpx removes: a run leaves
    nothing in the system's temporary folder."""
    before = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        yield
    finally:
        tempfile.tempdir = before


def compile_model(model: Path, out_dir: Path, *, prefix: str, module_name: str,
                  platform: str, log: Path,
                  tensor_rules: list[dict[str, Any]] | None = None) -> AotModule:
    """Compile ``model`` into ``out_dir/<module_name>`` (written in a temporary folder first);
    the compiler's output goes to ``log``; ``tensor_rules`` are heliaAOT ``memory.tensors``
    rules (where tensors go)."""
    version = str(require_helia_aot())
    out_dir.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=".aot-", dir=out_dir))
    try:
        try:
            with tool_output_to(log, f"heliaAOT {version} compiling {model}"), \
                    _scratch_in(temp):
                context = _convert(model, temp, prefix=prefix, module_name=module_name,
                                   platform=platform, tensor_rules=tensor_rules or [])
        except Exception as exc:  # the compiler's refusal, in its words (the rest is in log)
            raise refusal(exc, model.name, version, log) from None
        final = out_dir / module_name
        shutil.rmtree(final, ignore_errors=True)
        (temp / module_name).rename(final)
        return AotModule(final, _operators(context), _plan(context.memory_plan), platform,
                         version)
    finally:
        shutil.rmtree(temp, ignore_errors=True)

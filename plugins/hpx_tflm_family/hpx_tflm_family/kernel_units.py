"""The units of a TFLite Micro library a program needs, found from the sources.

A MicroInterpreter program links the interpreter (whatever the runner includes: interpreter,
allocators, planners, flatbuffer helpers) and, for each operator the model uses, the kernel
that defines its registration (``Register_CONV_2D()``, as the checkout's
``micro_mutable_op_resolver.h`` names it), with every helper those files include and
implement (:mod:`hpx_core.sdk.enginelib.include_graph`: ``conv.h`` -> ``conv_common.cc``), and the C
kernel library's files they call by name (CMSIS-NN, ns-cmsis-nn:
:mod:`hpx_core.sdk.enginelib.c_symbols`). Nothing is compiled to find them and no table is kept: a
fork (heliaRT) with other files is read the same way.

The interpreter's closure does not descend into kernel headers (the resolver header includes
them all); which kernels link is the model's choice.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from hpx_core.sdk import BuildError, ModelError
from hpx_core.sdk.enginelib.c_symbols import needed, scan, scan_files
from hpx_core.sdk.enginelib.include_graph import IncludeGraph, closure, normal
from hpx_core.sdk.enginelib.precompiled import Precompiled
from hpx_tflm_family.resolver import RESOLVER_HEADER

TEMPLATES = Path(__file__).with_name("templates")
KERNEL_FOLDER = "/micro/kernels/"  # TFLM's kernels and heliaRT's signal kernels
_INCLUDE = re.compile(r'^#include "(tensorflow/[^"]+)"', re.MULTILINE)
_METHOD = re.compile(r"TfLiteStatus (Add\w+)\(")
_OPERATOR = re.compile(r"BuiltinOperator_(\w+)")
_REGISTER = re.compile(r"\b(Register_\w+)\s*\(")


def schema_header(root: Path) -> Precompiled:
    """The header most of the library's units (TFLite Micro's, a fork's) spend most of their
    compile parsing: the model schema's generated code, with flatbuffers."""
    return Precompiled(root / "tensorflow/lite/schema/schema_generated.h")


def runner_headers(root: Path) -> list[Path]:
    """The engine's headers the C++ runner includes, in the checkout at ``root``."""
    found = {name for template in sorted(TEMPLATES.iterdir()) if template.is_file()
             for name in _INCLUDE.findall(template.read_text(encoding="utf-8"))}
    return [root / name for name in sorted(found) if (root / name).is_file()]


def _method_bodies(text: str) -> Iterable[str]:
    """Each ``Add...()`` method of the resolver header, signature and body."""
    for match in _METHOD.finditer(text):
        depth, end = 0, text.find("{", match.end())
        while end != -1 and end < len(text):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
            end += 1
        yield text[match.start():end]


def registrations(root: Path, ops: Collection[str]) -> set[str]:
    """The registration functions the resolver calls for ``ops`` (builtin operator names)."""
    text = (root / RESOLVER_HEADER).read_text(encoding="utf-8", errors="replace")
    found: dict[str, set[str]] = {}
    for body in _method_bodies(text):
        for op in _OPERATOR.findall(body):
            found.setdefault(op, set()).update(_REGISTER.findall(body))
    unknown = sorted(op for op in ops if not found.get(op))
    if unknown:
        raise ModelError(
            f"operator {unknown[0]} has no builtin kernel in this TFLite Micro",
            "the engine cannot run this model; check the model's operators with `hpx analyze`",
        )
    return {name for op in ops for name in found[op]}


def _defining(files: Sequence[Path], names: set[str]) -> list[Path]:
    """The files that define each of ``names`` (``Register_X() {``)."""
    patterns = {name: re.compile(rf"\b{name}\s*\(\s*\)\s*\{{") for name in names}
    taken: list[Path] = []
    found: set[str] = set()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        hits = {name for name, pattern in patterns.items() if pattern.search(text)}
        if hits:
            taken.append(path)
            found |= hits
    missing = sorted(names - found)
    if missing:
        raise BuildError(f"no kernel source of this TFLite Micro defines {missing[0]}()",
                         "the checkout's resolver header and its kernels disagree; use the "
                         "pinned commit")
    return taken


def needed_sources(sources: Iterable[str], root: Path, ops: Collection[str],
                   include_dirs: Sequence[Path]) -> set[str]:
    """Of a library's ``sources``, those a program with ``ops`` links: the interpreter's, the
    operators' kernels and their helpers, and the C kernel files they call."""
    graph = IncludeGraph([root, *include_dirs])
    root = normal(root)
    units = [normal(s) for s in sources]
    engine = [u for u in units if u.is_relative_to(root) and u.suffix != ".c"]
    kernels = [u for u in engine if KERNEL_FOLDER in f"/{u.relative_to(root).as_posix()}"]
    framework = [u for u in engine if u not in kernels]

    def inside(header: Path) -> bool:
        return header.is_relative_to(root)

    def interpreter(header: Path) -> bool:
        return inside(header) and KERNEL_FOLDER not in f"/{header.relative_to(root)}"

    core = closure(graph, runner_headers(root), framework, descend=interpreter)
    entries = _defining(kernels, registrations(root, ops)) if ops else []
    operators = closure(graph, entries, engine, descend=inside)
    c_files = [u for u in units if u.suffix == ".c"]
    uses = {name for path in operators for name in
            scan(path.read_text(encoding="utf-8", errors="replace")).uses}
    c_needed = needed(uses, scan_files(c_files)) if c_files and operators else set()
    return {p.as_posix() for p in (*core, *operators, *c_needed)}

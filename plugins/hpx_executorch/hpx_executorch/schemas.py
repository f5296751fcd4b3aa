"""Operator schemas of a runtime checkout: how many values each kernel call must carry.

An ExecuTorch kernel call passes every schema argument (the ``out`` tensors included) plus one
value per return. Comparing that count with the arguments a PTE's instructions carry tells, for
each operator, whether the program was emitted against the same schema as the runtime: the
runtime only checks this inside ``Method::execute()``, too late to say anything useful.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from hpx_core.sdk import SourceError

# Where the runtime's schemas live, relative to the nsx-executorch root.
EXECUTORCH = "external/executorch"
CUSTOM_YAMLS = (
    f"{EXECUTORCH}/backends/cortex_m/ops/operators.yaml",
    "ops-ns/operators_ns.yaml",
)
ATEN_YAML = "tools/python/torchgen/packaged/ATen/native/native_functions.yaml"
VERSION_FILE = f"{EXECUTORCH}/version.txt"
_FUNC = re.compile(r"^(?P<name>[\w:]+)(?:\.(?P<overload>\w+))?\((?P<args>.*)\)\s*->\s*(?P<ret>.*)$")


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets and parentheses."""
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def call_arity(func: str) -> tuple[str, int] | None:
    """(``name.overload``, values per kernel call) of one schema string; None if unparsable."""
    match = _FUNC.match(func.strip())
    if match is None:
        return None
    args = [a for a in _split_top(match["args"]) if a != "*"]
    ret = match["ret"].strip()
    if ret.startswith("(") and ret.endswith(")"):
        returns = len(_split_top(ret[1:-1]))
    else:
        returns = 0 if ret in ("", "()") else 1
    name = match["name"] if "::" in match["name"] else f"aten::{match['name']}"
    qualified = f"{name}.{match['overload']}" if match["overload"] else name
    return qualified, len(args) + returns


def _funcs(path: Path) -> Iterable[str]:
    try:
        entries = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8")) or []
    except (OSError, YAMLError) as exc:
        raise SourceError(f"cannot read operator schemas {path}: {exc}",
                          "re-materialize the executorch sources") from None
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("func"), str):
            yield entry["func"]


def runtime_arities(root: Path, wanted: Iterable[str]) -> dict[str, int]:
    """Call arity of each ``wanted`` operator the runtime at ``root`` defines a schema for."""
    names = set(wanted)
    found: dict[str, int] = {}
    for rel in (*CUSTOM_YAMLS, ATEN_YAML):
        path = root / rel
        if not path.is_file():
            continue
        for func in _funcs(path):
            parsed = call_arity(func)
            if parsed is not None and parsed[0] in names:
                found.setdefault(parsed[0], parsed[1])
    return found


def runtime_version(root: Path) -> str:
    """The ExecuTorch release of the runtime checkout (``version.txt``)."""
    path = root / VERSION_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        raise SourceError(f"{VERSION_FILE} is missing under {root}",
                          "point source_path at an nsx-executorch checkout with its "
                          "external/executorch submodule") from None


def arity_map(pairs: Mapping[str, int]) -> dict[str, int]:
    return dict(sorted(pairs.items()))

"""docs/engine-reference.md says what the code says: every hook with its request, answer and
protocol, every record an engine meets with exactly its fields, and the values of its literal
types."""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import attrs
import pytest

import hpx_core.contract as contract
from hpx_core import engine_protocol, hookspecs
from hpx_core.models import info

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "engine-reference.md").read_text()
HOOKS = {name: spec for name, spec in vars(hookspecs).items() if name.startswith("hpx_")}


def table_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows (``\\|`` kept inside a cell)."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith(("|---", "| field", "| hook", "| value")):
            cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
            rows.append([c.strip().replace("\\|", "|").strip("`") for c in cells])
    return rows


def section(heading: str) -> str:
    """The text under ``### `heading``` up to the next heading."""
    match = re.search(rf"^### `{heading}`\n(.*?)(?=^#)", PAGE + "\n#", re.S | re.M)
    assert match, f"docs/engine-reference.md has no section for {heading}"
    return match.group(1)


def hook_table() -> dict[str, list[str]]:
    text = PAGE.split("## Hooks", 1)[1].split("\n## ", 1)[0]
    return {row[0]: row for row in table_rows(text)}


def test_every_hook_is_listed_with_its_request_answer_and_protocol() -> None:
    table = hook_table()
    assert set(table) == set(HOOKS)
    protocols = {name: p.__name__ for p in engine_protocol.PROTOCOLS for name in vars(p)}
    for name, spec in HOOKS.items():
        _, request, answer, _, first, protocol = table[name]
        signature = inspect.signature(spec)
        requests = [p.annotation for p in signature.parameters.values()]
        assert [request] == (requests or ["-"]), name
        assert answer == signature.return_annotation, name
        firstresult = spec.hpx_spec["firstresult"]
        assert first == ("yes" if firstresult else "no"), name
        assert protocol == protocols[name], name


RECORD_HOMES = (contract, info)
ALIASES = {"CheckLayers"}  # types the page explains by their values, not records


def documented_records() -> list[str]:
    return [n for n in re.findall(r"^### `(\w+)`$", PAGE, re.M) if n not in ALIASES]


def test_check_layers_lists_exactly_its_values() -> None:
    rows = table_rows(section("CheckLayers"))
    assert [row[0] for row in rows] == list(typing.get_args(contract.CheckLayers))


def record(name: str) -> type:
    for home in RECORD_HOMES:
        if hasattr(home, name):
            return getattr(home, name)  # type: ignore[no-any-return]
    raise AssertionError(f"{name} is neither in hpx_core.contract nor hpx_core.models")


def written_annotation(cls: type, field: str) -> str:
    """The annotation as the source spells it: ``attrs.Attribute.type`` is no witness, since
    cattrs resolves a class's string annotations to classes in place once it structures one."""
    for klass in cls.__mro__:
        annotations = vars(klass).get("__annotations__", {})
        if field in annotations:
            return str(annotations[field])
    raise AssertionError(f"{cls.__name__}.{field} has no annotation")


@pytest.mark.parametrize("name", documented_records())
def test_each_record_lists_exactly_its_fields_with_their_types(name: str) -> None:
    cls = record(name)
    fields = attrs.fields(cls)
    rows = table_rows(section(name))
    assert [row[0] for row in rows] == [f.name for f in fields]
    assert [row[1] for row in rows] == [written_annotation(cls, f.name) for f in fields]


def test_every_record_a_hook_takes_or_answers_is_documented() -> None:
    """The requests, the answers and the contract records inside them, one level down."""
    wanted = set()
    for spec in HOOKS.values():
        signature = inspect.signature(spec)
        names = [p.annotation for p in signature.parameters.values()]
        names += re.findall(r"\w+", signature.return_annotation)
        wanted |= {n for n in names if any(attrs.has(getattr(h, n, None) or int)
                                           for h in RECORD_HOMES)}
    for name in list(wanted):
        for field in attrs.fields(record(name)):
            wanted |= {n for n in re.findall(r"\w+", str(field.type))
                       if any(attrs.has(getattr(h, n, None) or int) for h in RECORD_HOMES)}
    wanted -= {"Provenance", "PteProgram", "Capture"}  # read through methods, not fields
    assert wanted <= set(documented_records()), sorted(wanted - set(documented_records()))

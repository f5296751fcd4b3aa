"""docs/engine-reference.md says what the code says: every hook with its request, answer, reach
and protocol, every record an engine meets with exactly its fields, and the values of its
literal types; the guide and the architecture name every hook, and say whom the core asks as
the table does."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import attrs
import pytest

import hpx_core.contract as contract
from hpx_core.engine_protocol import HOOKS, Reach
from hpx_core.models import info

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGE = (DOCS / "engine-reference.md").read_text()
GUIDE = (DOCS / "writing-an-engine.md").read_text()
ARCHITECTURE = (DOCS / "architecture.md").read_text()


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


def test_every_hook_is_listed_with_its_request_answer_reach_and_protocol() -> None:
    """The rows as the table of hpx_core/engine_protocol.py makes them, in its order."""
    expected = [[hook.name, hook.request.__name__ if hook.request else "-", hook.answer,
                 hook.reach.value, "yes" if hook.optional else "no", hook.protocol.__name__]
                for hook in HOOKS.values()]
    assert list(hook_table().values()) == expected


@pytest.mark.parametrize("page", ["engine-reference.md", "writing-an-engine.md"])
def test_every_hook_is_named_in_the_reference_and_the_guide(page: str) -> None:
    text = (DOCS / page).read_text()
    assert [name for name in HOOKS if f"`{name}" not in text] == []


def test_the_guide_names_the_hooks_that_reach_more_than_the_engine() -> None:
    """The guide's sentence on whom the core asks names exactly the hooks the table says."""
    sentence = GUIDE.split("The core calls an engine's hooks only", 1)[1].split("\n\n", 1)[0]
    named = set(re.findall(r"`(hpx_\w+)`", sentence))
    assert named == {name for name, hook in HOOKS.items() if hook.reach is not Reach.ENGINE}


def test_the_architecture_says_whom_each_hook_reaches() -> None:
    text = ARCHITECTURE.split("## The contract", 1)[1].split("\n## ", 1)[0]
    rows = {re.match(r"(hpx_\w+)", row[0]).group(1): row[1]  # type: ignore[union-attr]
            for row in table_rows(text) if row[0].startswith("hpx_")}
    assert set(rows) == set(HOOKS)
    for name, hook in HOOKS.items():
        assert ("every plugin" in rows[name]) is (hook.reach is Reach.EVERY_PLUGIN), name
        first_answer = hook.reach is Reach.ENGINE_ELSE_FIRST
        assert ("each plugin until one answers" in rows[name]) is first_answer, name


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
    for hook in HOOKS.values():
        names = [hook.request.__name__] if hook.request else []
        names += re.findall(r"\w+", hook.answer)
        wanted |= {n for n in names if any(attrs.has(getattr(h, n, None) or int)
                                           for h in RECORD_HOMES)}
    for name in list(wanted):
        for field in attrs.fields(record(name)):
            wanted |= {n for n in re.findall(r"\w+", str(field.type))
                       if any(attrs.has(getattr(h, n, None) or int) for h in RECORD_HOMES)}
    wanted -= {"Provenance", "PteProgram", "Capture"}  # read through methods, not fields
    assert wanted <= set(documented_records()), sorted(wanted - set(documented_records()))

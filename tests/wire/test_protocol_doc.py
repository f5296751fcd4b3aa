"""docs/wire-protocol.md, the parser's record table and the firmware emitter agree."""

from __future__ import annotations

import re
from pathlib import Path

from hpx_core.wire.protocol import EXIT_STATUS, RECORDS, VERSION

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "wire-protocol.md").read_text("utf-8")
HARNESS = REPO / "firmware_templates" / "harness"


def _doc_records() -> dict[str, list[tuple[str, str]]]:
    records: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in DOC.splitlines():
        heading = re.match(r"^### ([A-Z]+)$", line)
        if heading:
            current = heading.group(1)
            records[current] = []
        row = re.match(r"^\| `([a-z_]+)` \| (\w+) \|", line)
        if row and current:
            records[current].append((row.group(1), row.group(2)))
    return records


def test_doc_lists_every_record_with_its_fields_in_order() -> None:
    expected = {t: [(f.name, f.kind) for f in s.fields] for t, s in RECORDS.items()}
    assert _doc_records() == expected


def test_doc_states_the_version_and_exit_statuses() -> None:
    assert f"# Wire protocol (version {VERSION})" in DOC
    for code, name in EXIT_STATUS.items():
        assert f"{code} {name}" in DOC


def _emitted() -> dict[str, list[str]]:
    """Record types and keys as the harness C code emits them, in order."""
    found: dict[str, list[str]] = {}
    pattern = re.compile(r'hpx_wire_begin\("([A-Z]+)"\);(.*?)hpx_wire_end\(\);', re.S)
    for source in HARNESS.glob("*.c"):
        for match in pattern.finditer(source.read_text("utf-8")):
            keys = re.findall(r'hpx_wire_\w+\("([a-z_]+)"', match.group(2))
            previous = found.setdefault(match.group(1), keys)
            assert previous == keys, f"{match.group(1)} is emitted with different fields"
    return found


def test_firmware_emits_exactly_the_documented_records() -> None:
    assert _emitted() == {t: list(s.names()) for t, s in RECORDS.items()}


def test_firmware_version_and_exit_codes_match() -> None:
    wire_h = (HARNESS / "hpx_wire.h").read_text("utf-8")
    assert f"#define HPX_WIRE_VERSION {VERSION}" in wire_h
    harness_h = (HARNESS / "hpx_harness.h").read_text("utf-8")
    codes = {int(v): k for k, v in re.findall(r"#define HPX_EXIT_(\w+) (\d+)", harness_h)}
    assert set(codes) == set(EXIT_STATUS)

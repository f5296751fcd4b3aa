"""docs/wire-protocol.md, the parser's record table and the firmware emitter agree."""

from __future__ import annotations

import re
from pathlib import Path

from hpx_core.wire.protocol import EXIT_STATUS, MAX_LINE, OUTPUT_CHUNK, RECORDS, VERSION

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "wire-protocol.md").read_text("utf-8")
HARNESS = REPO / "firmware_templates" / "harness"


def _doc_records() -> dict[str, list[tuple[str, str, str]]]:
    records: dict[str, list[tuple[str, str, str]]] = {}
    current = None
    for line in DOC.splitlines():
        heading = re.match(r"^### ([A-Z]+)$", line)
        if heading:
            current = heading.group(1)
            records[current] = []
        row = re.match(r"^\| `([a-z_]+)` \| (\w+) \| ([^|]+) \|", line)
        if row and current:
            records[current].append((row.group(1), row.group(2), row.group(3)))
    return records


def test_doc_lists_every_record_with_its_fields_in_order() -> None:
    expected = {t: [(f.name, f.kind, f.bounds()) for f in s.fields] for t, s in RECORDS.items()}
    assert _doc_records() == expected


def test_doc_states_the_line_limit_and_the_bounds_fit_the_firmware() -> None:
    assert f"at most {MAX_LINE:,} bytes" in DOC
    end_status = RECORDS["END"].fields[0]
    assert (end_status.low, end_status.high) == (min(EXIT_STATUS), max(EXIT_STATUS))
    main_c = (HARNESS / "hpx_main.c").read_text("utf-8")
    assert f"#define HPX_OUTPUT_CHUNK {OUTPUT_CHUNK}u" in main_c
    assert RECORDS["OUTPUT"].fields[-1].high == OUTPUT_CHUNK


def test_doc_states_the_version_and_exit_statuses() -> None:
    assert f"# Wire protocol (version {VERSION})" in DOC
    for code, name in EXIT_STATUS.items():
        assert f"{code} {name}" in DOC


def _emitted() -> dict[str, list[tuple[str, str]]]:
    """Record types and (writer, key) as the harness C code emits them, in order."""
    found: dict[str, list[tuple[str, str]]] = {}
    pattern = re.compile(r'hpx_wire_begin\("([A-Z]+)"\);(.*?)hpx_wire_end\(\);', re.S)
    for source in HARNESS.glob("*.c"):
        for match in pattern.finditer(source.read_text("utf-8")):
            keys = re.findall(r'hpx_wire_(\w+)\("([a-z_]+)"', match.group(2))
            previous = found.setdefault(match.group(1), keys)
            assert previous == keys, f"{match.group(1)} is emitted with different fields"
    return found


WRITERS = {"int": "u64", "i32": "i32", "i64": "i64", "hex32": "hex32", "text": "str",
           "bytes": "bytes"}


def test_firmware_emits_exactly_the_documented_records() -> None:
    expected = {t: [(WRITERS[f.kind], f.name) for f in s.fields] for t, s in RECORDS.items()}
    assert _emitted() == expected


def test_firmware_version_and_exit_codes_match() -> None:
    wire_h = (HARNESS / "hpx_wire.h").read_text("utf-8")
    assert f"#define HPX_WIRE_VERSION {VERSION}" in wire_h
    harness_h = (HARNESS / "hpx_harness.h").read_text("utf-8")
    codes = {int(v): k for k, v in re.findall(r"#define HPX_EXIT_(\w+) (\d+)", harness_h)}
    assert set(codes) == set(EXIT_STATUS)

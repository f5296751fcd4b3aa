"""The committed .pte fixtures agree with the record the exporter wrote beside them.

A partial re-export (one file regenerated, the record not) or a damaged file fails here, before
the reader tests compare hpx's reading with the record.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pte"
RECORD = json.loads((FIXTURES / "pte_fixtures.json").read_text(encoding="utf-8"))
PROGRAMS: list[dict[str, Any]] = RECORD["programs"]
FLOAT_BYTES = 4


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _single_plan(program: dict[str, Any]) -> dict[str, Any]:
    (plan,) = program["execution_plans"]
    assert plan["name"] == "forward"
    return dict(plan)


def test_record_names_the_exporter() -> None:
    assert RECORD["seed"] == 20260819
    assert RECORD["exporter"]["executorch"] == "1.5.1"
    assert RECORD["exporter"]["torch"].startswith("2.13.0")
    assert [p["name"] for p in PROGRAMS] == ["tier1", "tier1mean", "conv"]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p["name"])
def test_pte_file_matches_record(program: dict[str, Any]) -> None:
    data = (FIXTURES / program["file"]).read_bytes()
    assert len(data) == program["size_bytes"]
    assert hashlib.sha256(data).hexdigest() == program["sha256"]
    assert data[4:8] == b"ET12" == program["layout"]["file_identifier"].encode()
    layout = program["layout"]
    segment_end = max((s["offset"] + s["size"] for s in layout["segments"]), default=0)
    assert layout["program_size"] <= len(data)
    assert layout["segment_base_offset"] + segment_end <= len(data)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p["name"])
def test_instructions_reference_the_operator_table(program: dict[str, Any]) -> None:
    plan = _single_plan(program)
    calls = [i for chain in plan["chains"] for i in chain["instructions"]]
    assert calls, "a program with no instructions"
    assert {i["kind"] for i in calls} == {"KernelCall"}
    used = {i["op_index"] for i in calls}
    assert used == set(range(len(plan["operators"])))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p["name"])
def test_reference_arrays_match_record(program: dict[str, Any]) -> None:
    plan = _single_plan(program)
    ref = program["reference"]
    (tensor_in,) = plan["inputs"]
    (tensor_out,) = plan["outputs"]
    for side, tensor in (("input", tensor_in), ("output", tensor_out)):
        path = FIXTURES / ref[side]["file"]
        assert _sha256(path) == ref[side]["sha256"]
        codes = np.load(path, allow_pickle=False)
        assert codes.dtype == np.int8
        assert list(codes.shape) == tensor["sizes"]
        assert tensor["scalar_type"] == "FLOAT"
        assert tensor["size_bytes"] == codes.size * FLOAT_BYTES


def test_reference_input_follows_its_documented_formula() -> None:
    """Codes = hash of the flat NCHW index in [-64, 64) + per-channel offset in [-64, 64)."""
    for program in PROGRAMS:
        codes = np.load(FIXTURES / program["reference"]["input"]["file"], allow_pickle=False)
        shape = codes.shape
        index = np.arange(codes.size, dtype=np.int64)
        noise = ((index * 1103515245 + 12345) // 65536 % 128 - 64).reshape(shape)
        channels = shape[1]
        bias = (np.arange(channels) * 128 // channels - 64).reshape(1, channels, 1, 1)
        np.testing.assert_array_equal(codes, (noise + bias).astype(np.int8))


def test_tier1mean_output_tracks_the_channel_offsets() -> None:
    """The mean over H,W of each channel is about its offset / 128 (noise averages out)."""
    (program,) = [p for p in PROGRAMS if p["name"] == "tier1mean"]
    ref = program["reference"]
    x = np.load(FIXTURES / ref["input"]["file"]).astype(np.float32) / 128.0
    codes = np.load(FIXTURES / ref["output"]["file"]).astype(np.float32)
    out = (codes - ref["output"]["zero_point"]) * np.float32(ref["output"]["scale"])
    expected = x.mean(axis=(2, 3), keepdims=True)
    assert np.abs(out - expected).max() <= ref["output"]["scale"]

"""Command-line flags as one typed record: each sets one real config key, named by its flag."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from hpx_core.config import ProfileConfig
from hpx_core.config.command_line import (
    SETS,
    CommandLine,
    counter_names,
    engine_config_values,
)
from hpx_core.config.validate import validate_config
from hpx_core.errors import UsageError


def config_keys(cls: type, prefix: str = "") -> set[str]:
    keys = set()
    for field in attrs.fields(attrs.resolve_types(cls)):
        inner = field.type if isinstance(field.type, type) else None
        if inner is not None and attrs.has(inner):
            keys |= config_keys(inner, f"{prefix}{field.name}.")
        keys.add(f"{prefix}{field.name}")
    return keys


def test_every_flag_field_sets_a_real_config_key() -> None:
    unset = {"no_wait", "engine_config", "pass_flags"}  # not one key each
    fields = {f.name for f in attrs.fields(CommandLine)} - unset
    assert set(SETS) == fields
    assert {key for key, _ in SETS.values()} <= config_keys(ProfileConfig)


def test_the_overrides_hold_what_was_given_as_the_document_holds_it() -> None:
    flags = CommandLine(board="qemu-m4", output_dir=Path("out"), counters=("A", "B"),
                        no_wait=True, wait=5.0,
                        engine_config=engine_config_values(["ns_ops=true", "size=2048"]))
    assert flags.overrides() == {
        "target.board": ("qemu-m4", "--board"), "output.dir": ("out", "--output-dir"),
        "profiling.counters": (["A", "B"], "--counters"), "farm.wait": (0, "--no-wait"),
        "engine.config.ns_ops": (True, "--engine-config"),
        "engine.config.size": (2048, "--engine-config"),
    }
    assert CommandLine().overrides() == {}
    assert counter_names(" INST_RETIRED, ,L1D_CACHE ") == ("INST_RETIRED", "L1D_CACHE")


def test_a_malformed_engine_config_item_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="'oops' is not KEY=VALUE"):
        engine_config_values(["oops"])


def test_a_flag_is_the_origin_of_its_value(tmp_path: Path) -> None:
    validated = validate_config(None, CommandLine(engine="tflm", board="qemu-m4",
                                                  iterations=3).overrides())
    assert validated.board.name == "qemu-m4" and validated.config.profiling.iterations == 3
    assert validated.document.origin("profiling.iterations") == "--iterations"
    assert validated.document.origin("target.board") == "--board"


def test_the_location_flags_place_the_model_and_the_arena(tmp_path: Path) -> None:
    """The memory plan needs no engine sources: the run stops right after it."""
    from hpx_core import pipeline

    kws = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
    line = CommandLine(model=kws, engine="tflm", board="qemu-m55", model_location="flash",
                       arena_location="tcm", output_dir=tmp_path)
    outcome = pipeline.profile(None, None, line.overrides(), until="memory plan")
    assert outcome.layout is not None
    places = {p.need.name: (p.word, p.chosen) for p in outcome.layout.placements}
    assert places == {"model": ("flash", True), "arena": ("tcm", True)}
    assert outcome.validated.document.origin("model.location") == "--model-location"

"""Numeric fields hold only what the firmware holds: its counts and sizes are 32-bit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hpx_core.config import load_config
from hpx_core.config.checks import UINT32_MAX
from hpx_core.config.validate import validate_config
from hpx_core.errors import ConfigError

WriteYaml = Callable[..., Path]


@pytest.mark.parametrize(
    ("section", "field"),
    [("profiling", "iterations"), ("profiling", "warmup"), ("model", "arena_size"),
     ("build", "jobs")],
)
@pytest.mark.parametrize("value", [UINT32_MAX + 1, 10**29])
def test_a_count_beyond_32_bits_is_refused_at_its_line(
    write_yaml: WriteYaml, section: str, field: str, value: int
) -> None:
    path = write_yaml(f"{section}:\n  {field}: {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.message.endswith(
        f": {section}.{field}: must be at most 4,294,967,295 (the firmware holds it in 32 bits), "
        f"got {value}"
    )
    assert caught.value.location is not None and caught.value.location.line == 2


def test_the_largest_32_bit_count_is_accepted(write_yaml: WriteYaml) -> None:
    config, _ = load_config(write_yaml(f"profiling:\n  iterations: {UINT32_MAX}\n"))
    assert config.profiling.iterations == UINT32_MAX


def test_an_engine_size_is_bounded_the_same_way(write_yaml: WriteYaml) -> None:
    """Engines use the same validator for their own sizes (here the executorch arenas)."""
    path = write_yaml(
        f"engine:\n  type: executorch\n  config:\n    method_arena_size: {10**12}\n"
    )
    with pytest.raises(ConfigError, match="method_arena_size: must be at most 4,294,967,295"):
        validate_config(path)

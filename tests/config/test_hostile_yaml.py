"""Hostile config files end in one located ConfigError, quickly, never in a traceback or a hang.

Each case is a file a user (or a generator gone wrong) could hand to ``hpx profile -c``: bytes
that are not UTF-8, nesting thousands of levels deep, aliases that expand exponentially, a file
of 20 MB, numbers Python will not convert.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hpx_core.config import load_config
from hpx_core.errors import ConfigError

WriteYaml = Callable[..., Path]


def _refused(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "\n" not in caught.value.message and caught.value.hint
    return caught.value


def _laughs(levels: int = 9) -> list[str]:
    """Billion laughs: each anchored value is a list of ten aliases of the previous one."""
    items = ["&l0 lol"]
    items += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels)]
    return items


def test_invalid_utf8_names_the_file_and_the_position(tmp_path: Path) -> None:
    path = tmp_path / "hpx.yaml"
    path.write_bytes(b"target:\n  board: qemu-m\xff55\n")
    error = _refused(path)
    assert "not UTF-8" in error.message and str(path) in str(error)
    assert error.location is not None and (error.location.line, error.location.column) == (2, 16)


@pytest.mark.parametrize(
    "text",
    [
        "profiling:\n  counters: " + "[" * 5000 + "]" * 5000 + "\n",
        "engine:\n  config:\n    deep:\n      " + "- " * 5000 + "x\n",
    ],
    ids=["flow", "block"],
)
def test_deep_nesting_is_refused_with_the_limit(write_yaml: WriteYaml, text: str) -> None:
    error = _refused(write_yaml(text))
    assert "nested deeper than 64 levels" in error.message
    assert error.location is not None and error.location.line >= 2


@pytest.mark.parametrize(
    "text",
    [
        "profiling:\n  counters: [" + ", ".join(_laughs()) + "]\n",
        "engine:\n  config: {" + ", ".join(f"k{i}: {v}" for i, v in enumerate(_laughs())) + "}\n",
    ],
    ids=["profiling.counters", "engine.config"],
)
def test_an_alias_bomb_is_refused_with_the_budget(write_yaml: WriteYaml, text: str) -> None:
    error = _refused(write_yaml(text))
    assert "expand to more than 10,000 values" in error.message
    assert error.location is not None and error.location.line == 2


def test_a_recursive_alias_is_refused(write_yaml: WriteYaml) -> None:
    error = _refused(write_yaml("engine:\n  config: &loop\n    again: *loop\n"))
    assert "refers to itself" in error.message


def test_a_file_over_the_size_cap_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    line = b"    - COUNTER_NAME_THAT_IS_LONG\n"
    path.write_bytes(b"profiling:\n  counters:\n" + line * (20_000_000 // len(line)))
    error = _refused(path)
    assert "larger than 256 KiB" in error.message
    assert str(path) in error.message


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("profiling:\n  iterations: " + "1" * 5000 + "\n", (2, 15)),
        ("engine:\n  config:\n    built: 2024-13-45\n", (3, 12)),
        ("engine:\n  config: {? {a: [1]} : x}\n", (2, 11)),
        ("? {a: [1]}\n: x\n", (1, 1)),
        ("profiling:\n  warmup: -_\n", (2, 11)),
        ("engine:\n  config: {mask: 0x_}\n", (2, 18)),
    ],
    ids=["5000-digit-int", "impossible-date", "list-in-a-key", "list-in-a-top-level-key",
         "sign-and-underscore", "hex-prefix-and-underscore"],
)
def test_values_python_cannot_convert_are_located(
    write_yaml: WriteYaml, text: str, where: tuple[int, int]
) -> None:
    error = _refused(write_yaml(text))
    assert error.location is not None
    assert (error.location.line, error.location.column) == where


def test_aliases_within_the_budget_keep_positions_and_suggestions(write_yaml: WriteYaml) -> None:
    path = write_yaml(
        "defaults: &counters [INST_RETIRED, L1D_CACHE_REFILL]\n"
        "profiling:\n  iterations: 3\n  counters: *counters\n"
    )
    error = _refused(path)  # 'defaults' is not a section: the alias itself is fine
    assert error.location is not None and (error.location.line, error.location.column) == (1, 1)
    path = write_yaml(
        "profiling:\n  iterations: &n 3\n  warmup: *n\n  countrs: []\n", name="typo.yaml"
    )
    error = _refused(path)
    assert "did you mean 'counters'?" in error.message
    assert error.location is not None and (error.location.line, error.location.column) == (4, 3)
    config, _ = load_config(write_yaml("profiling:\n  iterations: &n 3\n  warmup: *n\n", "ok.yaml"))
    assert (config.profiling.iterations, config.profiling.warmup) == (3, 3)


def test_a_control_character_is_one_located_line(write_yaml: WriteYaml) -> None:
    error = _refused(write_yaml("target:\n  board: qemu\x04m55\n"))
    assert "U+0004 is not allowed" in error.message
    assert error.location is not None and (error.location.line, error.location.column) == (2, 14)

"""Config errors point at the file position; overrides and origins are tracked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hpx_core.config import load_config, walk_values
from hpx_core.errors import ConfigError

WriteYaml = Callable[..., Path]


def _error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return caught.value


def test_unknown_key_has_position_and_suggestion(write_yaml: WriteYaml) -> None:
    path = write_yaml("# comment\ntarget:\n  bord: qemu-m55\n")
    error = _error(path)
    assert error.location is not None
    assert (error.location.line, error.location.column) == (3, 3)
    assert str(error).startswith(f"{path}:3:3: unknown key 'target.bord'")
    assert "did you mean 'board'?" in error.message
    assert "board, toolchain, probe" in error.hint
    assert error.exit_code == 2


def test_unknown_section(write_yaml: WriteYaml) -> None:
    error = _error(write_yaml("profilng:\n  iterations: 3\n"))
    assert "did you mean 'profiling'" in error.message


@pytest.mark.parametrize(
    ("text", "where", "expected"),
    [
        ("profiling:\n  iterations: abc\n", (2, 15), "profiling.iterations: expected an integer"),
        ("profiling:\n  iterations: 0\n", (2, 15), "profiling.iterations: must be at least 1"),
        ("profiling:\n  per_layer: 1\n", (2, 14), "profiling.per_layer: expected true or false"),
        ("model:\n  arena_location: mram\n", (2, 19), "must be one of 'code', 'flash'"),
        ("target:\n  toolchain: llvm\n", (2, 14), "must be one of 'arm-none-eabi-gcc'"),
        ("profiling:\n  counters: CPU_CYCLES\n", (2, 13), "expected a list of strings"),
        ("model:\n  path: 12\n", (2, 9), "model.path: expected a path"),
    ],
)
def test_wrong_values_name_path_and_type(
    write_yaml: WriteYaml, text: str, where: tuple[int, int], expected: str
) -> None:
    error = _error(write_yaml(text))
    assert error.location is not None
    assert (error.location.line, error.location.column) == where
    assert expected in error.message


def test_invalid_yaml_is_located(write_yaml: WriteYaml) -> None:
    error = _error(write_yaml("target: [qemu\n"))
    assert "invalid YAML" in error.message
    assert error.location is not None


def test_top_level_must_be_mapping(write_yaml: WriteYaml) -> None:
    assert "must be a mapping" in _error(write_yaml("- a\n- b\n")).message


def test_overrides_win_and_origins_are_reported(write_yaml: WriteYaml) -> None:
    path = write_yaml("target:\n  board: qemu-m4\nprofiling:\n  iterations: 7\n")
    config, document = load_config(path, {"target.board": ("qemu-m55", "--board")})
    assert config.target.board == "qemu-m55"
    assert config.profiling.iterations == 7
    origins = {v.path: v.origin for v in walk_values(config, document)}
    assert origins["target.board"] == "--board"
    assert origins["profiling.iterations"] == f"{path}:4:3"
    assert origins["profiling.warmup"] == "default"


def test_relative_paths_in_file_are_relative_to_the_file(write_yaml: WriteYaml) -> None:
    path = write_yaml("model:\n  path: models/kws.tflite\noutput:\n  dir: out\n")
    config, _ = load_config(path)
    assert config.model.path == path.parent / "models/kws.tflite"
    assert config.output.dir == path.parent / "out"
    config, _ = load_config(path, {"output.dir": ("here", "--output-dir")})
    assert config.output.dir == Path("here")


def test_empty_file_gives_defaults(write_yaml: WriteYaml) -> None:
    config, _ = load_config(write_yaml(""))
    assert (config.engine.type, config.target.board) == ("", "qemu-m55")  # engine: by model


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    error = _error(tmp_path / "nope.yaml")
    assert "cannot read" in error.message


def test_a_wrong_type_is_named_as_the_user_wrote_it(write_yaml: WriteYaml) -> None:
    """YAML's own scalar classes are not the user's words: 2.5 is a float."""
    with pytest.raises(ConfigError, match=r"expected an integer, got float 2\.5$"):
        load_config(write_yaml("profiling:\n  iterations: 2.5\n"), {})


def test_an_engine_config_value_from_the_flag_names_the_flag() -> None:
    from hpx_core.config.validate import validate_config

    with pytest.raises(ConfigError) as caught:
        validate_config(None, {"engine.type": ("tflm", "--engine"),
                               "engine.config.input_seed": ("x", "--engine-config")})
    assert caught.value.message == ("engine.config.input_seed: expected an integer, got str 'x' "
                                    "(set by --engine-config)")

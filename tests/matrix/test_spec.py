"""Matrix files are checked like profile configs: strict types, errors at FILE:LINE:COL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from loops_engine import loops_registry

from hpx_core.errors import ConfigError
from hpx_core.matrix import load_spec

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "examples/models/mlperf_tiny"
WriteYaml = Callable[[str], Path]


@pytest.fixture
def write(tmp_path: Path) -> WriteYaml:
    def write(text: str) -> Path:
        path = tmp_path / "matrix.yaml"
        path.write_text(f"hpx_matrix: 1\nmodels: [{MODELS / 'kws_ref_model.tflite'}]\n" + text)
        return path

    return write


def _error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_spec(path, loops_registry())
    return caught.value


def test_short_forms_and_defaults(write: WriteYaml) -> None:
    loaded = load_spec(write("engines: [loops]\nboards: [qemu-m55, {name: qemu-m4}]\n"),
                       loops_registry())
    spec = loaded.spec
    assert [b.name for b in spec.boards] == ["qemu-m55", "qemu-m4"]
    assert spec.engines[0].type == "loops" and spec.engines[0].backends == ()
    assert spec.models[0].name == "kws_ref_model" and spec.toolchains == ("arm-none-eabi-gcc",)
    assert loaded.shared.profiling.iterations == 5  # a profile config's default


@pytest.mark.parametrize(("text", "where", "words"), [
    ("engines: [loops]\nboards: [qemu-m56]\n", ":4:10:", "unknown board 'qemu-m56'"),
    ("engines: [lops]\nboards: [qemu-m55]\n", ":3:11:", "did you mean 'loops'"),
    ("engines:\n  - type: loops\n    backends: [plain, nop]\nboards: [qemu-m55]\n", ":5:23:",
     "no backend 'nop'"),
    ("engines: [loops]\nboards: [qemu-m55]\nprofile:\n  profiling:\n    iterations: 0\n",
     ":7:17:", "must be at least 1"),
    ("engines: [loops]\nboards: [qemu-m55]\nprofile:\n  target:\n    board: qemu-m4\n",
     ":7:12:", "is set for each cell by the matrix"),
    ("engines: [loops]\nboards: [qemu-m55]\nexclude:\n  - {board: qemu-m4}\n",
     ":6:13:", "no board 'qemu-m4' in the matrix"),
    ("engines: [loops]\nboards: [qemu-m55]\ninclude:\n  - {model: kws_ref_model}\n",
     ":6:5:", "names its model, engine and board"),
    ("engines: [loops]\nboards: [qemu-m55]\ntoolchains: [gcc]\n", ":5:14:",
     "unknown toolchain 'gcc'"),
    ("engines:\n  - type: loops\n    backend: plain\nboards: [qemu-m55]\n", ":4:5:",
     "backend"),
    ("engines: [loops]\nboards: [qemu-m55]\nplace: owner=\n", ":5:8:",
     "place 'owner=' is neither a name nor KEY=VALUE"),
    ("engines: [loops]\nboards: [qemu-m55]\nprofile:\n  target:\n    place: any\n",
     ":7:12:", "is set for each cell by the matrix"),
])
def test_errors_point_at_the_line(write: WriteYaml, text: str, where: str, words: str) -> None:
    error = _error(write(text))
    assert words in error.message
    assert where in error.message, error.message


def test_the_farm_places_a_matrix_spreads_over(write: WriteYaml) -> None:
    loaded = load_spec(write("engines: [loops]\nboards: [qemu-m55]\nplace: lab=loopback\n"),
                       loops_registry())
    assert loaded.spec.place == "lab=loopback"


def test_a_profile_config_is_not_a_matrix(tmp_path: Path) -> None:
    path = tmp_path / "hpx.yaml"
    path.write_text("target:\n  board: qemu-m55\n")
    assert "not a matrix file" in _error(path).message


def test_a_missing_model_is_named(write: WriteYaml) -> None:
    path = write("engines: [loops]\nboards: [qemu-m55]\n")
    path.write_text(path.read_text().replace("kws_ref_model.tflite", "gone.tflite"))
    error = _error(path)
    assert "no model file" in error.message and ":2:" in error.message


@pytest.mark.parametrize(("line", "field"), [
    ("name: ../../../elsewhere", "name"),
    ("name: /tmp/elsewhere", "name"),
    ("name: .hidden", "name"),
    ("engines:\n  - type: loops\n    configs: {'../up': {}}", "engines.0.configs.../up"),
])
def test_a_name_that_would_leave_the_matrix_folder_is_refused(write: WriteYaml, line: str,
                                                              field: str) -> None:
    engines = "" if "engines" in line else "engines: [loops]\n"
    error = _error(write(f"{engines}boards: [qemu-m55]\n{line}\n"))
    assert f"{field}: " in error.message and "is not a plain folder name" in error.message


def test_a_model_label_is_one_folder_name(tmp_path: Path) -> None:
    path = tmp_path / "matrix.yaml"
    path.write_text(f"hpx_matrix: 1\nmodels:\n  - {{path: {MODELS / 'kws_ref_model.tflite'}, "
                    "label: ../../kws}\nengines: [loops]\nboards: [qemu-m55]\n")
    assert "models.0.label: '../../kws' is not a plain folder name" in _error(path).message

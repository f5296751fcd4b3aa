"""The CLI prints errors as two lines with the right exit code, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from hpx_core.cli import main

WriteYaml = Callable[..., Path]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--version")
    assert code == 0 and out.startswith("hpx ")


def test_validate_typo_prints_location_and_suggestion(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml
) -> None:
    path = write_yaml("target: {bord: qemu-m55}\n")
    code, _, err = _run(capsys, "config", "validate", str(path))
    assert code == 2
    assert f"{path}:1:10: unknown key 'target.bord'; did you mean 'board'?" in err
    assert "Traceback" not in err


def test_validate_ns_ops_with_arm(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml
) -> None:
    path = write_yaml("engine: {type: executorch, backend: arm, config: {ns_ops: true}}\n")
    code, _, err = _run(capsys, "config", "validate", str(path))
    assert code == 2
    assert "ns_ops needs the ns provider" in err
    assert "hint: set engine.backend: ns" in err
    assert "Traceback" not in err


def test_validate_ok(capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml) -> None:
    path = write_yaml("engine: {type: tflm, backend: cmsis_nn}\n")
    code, out, _ = _run(capsys, "config", "validate", str(path))
    assert code == 0 and "valid (tflm, backend cmsis_nn" in out


def test_show_reports_origins(capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml) -> None:
    path = write_yaml("engine:\n  type: executorch\n  backend: ns\n")
    code, out, _ = _run(
        capsys,
        "config",
        "show",
        str(path),
        "--board",
        "apollo510_evb",
        "--engine-config",
        "method_arena_size=2048",
        "--json",
    )
    assert code == 0
    rows = {r["path"]: r for r in json.loads(out)}
    assert rows["engine.backend"]["origin"] == f"{path}:3:3"
    assert rows["target.board"] == {
        "path": "target.board",
        "value": "apollo510_evb",
        "origin": "--board",
    }
    assert rows["engine.config.method_arena_size"]["value"] == 2048
    assert rows["profiling.iterations"]["origin"] == "default"


def test_bad_engine_config_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "config", "show", "--engine-config", "oops")
    assert code == 2 and "is not KEY=VALUE" in err


def test_plugins_lists_engines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "plugins")
    assert code == 0
    for name in ("tflm", "helia-rt", "helia-aot", "executorch"):
        assert name in out


def test_profile_unknown_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "profile", "--engine", "tflmx")
    assert code == 2
    assert "did you mean 'tflm'" in err and "installed engines:" in err


def test_doctor_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "doctor", "--json")
    report = json.loads(out)
    names = {c["name"] for c in report["checks"]}
    assert {"python", "git", "cmake", "ninja", "toolchain arm-none-eabi-gcc", "toolchain clang",
            "toolchain atfe", "toolchain armclang", "qemu-system-arm"} <= names
    assert code == (0 if report["healthy"] else 1)


def test_profile_counters_on_an_emulated_board_are_refused_before_any_fetch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    kws = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
    code, _, err = _run(capsys, "profile", str(kws), "--engine", "tflm", "--board", "qemu-m55",
                        "--counters", "INST_RETIRED,L1D_CACHE_REFILL")
    assert code == 2 and "has no hardware counters" in err
    assert not (tmp_path / "cache").exists()  # nothing was fetched


def test_a_bare_check_layers_flag_means_first() -> None:
    from hpx_core.cli import spell_out

    assert spell_out(["profile", "m.tflite", "--check-layers", "--board", "qemu-m4"]) == [
        "profile", "m.tflite", "--check-layers=first", "--board", "qemu-m4"]
    assert spell_out(["--check-layers=all"]) == ["--check-layers=all"]


def test_an_unknown_check_layers_value_is_refused_with_its_choices() -> None:
    from hpx_core.config.validate import overrides, validate_config
    from hpx_core.errors import ConfigError

    with pytest.raises(ConfigError, match="check_layers") as caught:
        validate_config(None, overrides("--check-layers", profiling__check_layers="some",
                                        engine__type="tflm"))
    assert "first" in caught.value.message + caught.value.hint


def test_validate_takes_the_config_as_profile_does(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml
) -> None:
    path = write_yaml("engine: {type: tflm, backend: cmsis_nn}\n")
    code, out, _ = _run(capsys, "config", "validate", "-c", str(path))
    assert code == 0 and "valid (tflm, backend cmsis_nn" in out
    code, _, err = _run(capsys, "config", "validate")
    assert code == 2 and "no config to validate" in err and "-c hpx.yaml" in err


@pytest.mark.parametrize("command", ["profile", "build", "run", "selftest", "matrix"])
def test_every_command_that_writes_bundles_takes_output_dir(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, out, _ = _run(capsys, command, "--help")
    assert code == 0 and "--output-dir" in out


def test_the_model_argument_names_no_format(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the help on one line
    for command in ("profile", "build"):
        code, out, _ = _run(capsys, command, "--help")
        assert code == 0 and ".tflite or .pte" not in out and "hpx plugins" in " ".join(out.split())


def test_validate_takes_the_flags_profile_takes(
    capsys: pytest.CaptureFixture[str], write_yaml: WriteYaml
) -> None:
    path = write_yaml("engine: {type: tflm}\n")
    code, out, _ = _run(capsys, "config", "validate", str(path), "--board", "qemu-m4",
                        "--backend", "cmsis_nn")
    assert code == 0 and "valid (tflm, backend cmsis_nn, board qemu-m4" in out
    code, _, err = _run(capsys, "config", "validate", str(path), "--engine-config", "sed=1")
    assert code == 2 and "unknown key 'engine.config.sed' (set by --engine-config)" in err


def test_doctor_prints_brackets_as_written(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A hint like pip install "hpx-core[labgrid]" is text, not console markup."""
    from importlib import metadata

    from hpx_core.pipeline import doctor

    real = metadata.version

    def version(name: str) -> str:
        if name == "labgrid":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(doctor.metadata, "version", version)
    monkeypatch.setenv("COLUMNS", "250")
    _, out, _ = _run(capsys, "doctor")
    assert 'pip install "hpx-core[labgrid]"' in out

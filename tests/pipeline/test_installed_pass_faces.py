"""The faces of a pass beyond the run, shown by a pass another distribution installs
(tests/fixtures/plugins/hpx_sample_pass) with no core module naming it: a key of its own in
``profiling`` (located, offered by did-you-mean, listed by ``hpx config show``), a flag of
``hpx profile`` that sets it, its file's schema checked by verification, its section of the
bundle's page, its line in ``hpx compare`` and a command of its own (``hpx census``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from emulated_firmware import require_tools
from tampered_bundles import copy_bundle, rehash

from hpx_core.cli import main
from hpx_core.errors import ConfigError, ResultsError
from hpx_core.plugins import default_registry
from hpx_core.report.html import bundle_report
from hpx_core.results import verify_bundle
from hpx_core.results.view import load_view

KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")
CENSUS = "record_census.json"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The loops engine and the sample pass installed for this module; a scratch folder."""
    from loops_engine import loops_paths
    from sample_pass import sample_pass_paths

    root = tmp_path_factory.mktemp("faces")
    with pytest.MonkeyPatch.context() as patch:
        for folder in (*loops_paths(root / "site"), *sample_pass_paths(root / "site")):
            patch.syspath_prepend(str(folder))
        default_registry(reload=True)
        yield root
    default_registry(reload=True)


def _config(folder: Path, profiling: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hpx.yaml"
    path.write_text(f"model: {{path: {KWS}}}\nengine: {{type: loops}}\n"
                    f"target: {{board: qemu-m55}}\nprofiling:\n{profiling}", encoding="utf-8")
    return path


def test_its_key_is_read_from_the_file_and_shown_with_its_origin(
        installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(installed / "shown", "  iterations: 1\n  skip_census: true\n")
    assert main(["config", "show", "-c", str(config), "--json"]) == 0
    rows = {row["path"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["profiling.skip_census"]["value"] is True
    assert rows["profiling.skip_census"]["origin"] == f"{config}:6:3"


def test_a_misspelt_key_is_located_and_offered_the_pass_key(installed: Path) -> None:
    from hpx_core import pipeline

    config = _config(installed / "misspelt", "  skip_censs: true\n")
    with pytest.raises(ConfigError) as refused:
        pipeline.check(config)
    assert "unknown key 'profiling.skip_censs'" in refused.value.message
    assert "did you mean 'skip_census'" in refused.value.message
    assert refused.value.location is not None and refused.value.location.line == 5


def test_a_wrong_type_is_located_in_the_file(installed: Path) -> None:
    from hpx_core import pipeline

    config = _config(installed / "typed", "  skip_census: 3\n")
    with pytest.raises(ConfigError) as refused:
        pipeline.check(config)
    assert refused.value.message == (f"{config}:5:16: profiling.skip_census: expected true or "
                                     "false, got int 3")


def test_its_flag_is_an_option_of_hpx_profile(installed: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "--help"]) == 0
    assert "--skip-census" in capsys.readouterr().out


def test_its_command_is_listed_and_refuses_a_folder_that_is_no_bundle(
        installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert " census " in capsys.readouterr().out
    assert main(["census", str(installed)]) != 0
    assert "error:" in capsys.readouterr().err


@pytest.fixture(scope="module")
def bundles(installed: Path) -> tuple[Path, Path]:
    """A run with the census and one with ``--skip-census``."""
    require_tools()
    found = []
    for name, more in (("with", []), ("without", ["--skip-census"])):
        out = installed / name
        code = main(["profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                     "--iterations", "1", "--output-dir", str(out), *more])
        assert code == 0
        found.append(next(p for p in out.iterdir() if (p / "summary.json").exists()))
    return found[0], found[1]


@pytest.mark.emulated
def test_the_flag_leaves_the_pass_out_and_says_where_it_came_from(
        bundles: tuple[Path, Path]) -> None:
    with_census, without = bundles
    assert CENSUS in verify_bundle(with_census).files
    assert CENSUS not in verify_bundle(without).files
    config = json.loads((without / "config.json").read_text())
    assert config["profiling.skip_census"] == {"value": True, "from": "--skip-census"}


@pytest.mark.emulated
def test_its_file_is_checked_against_its_schema(bundles: tuple[Path, Path],
                                                tmp_path: Path) -> None:
    bundle = copy_bundle(bundles[0], tmp_path)
    (bundle / CENSUS).write_text(json.dumps({"by_type": {"LAYER": "many"}, "per_layer": {}}))
    rehash(bundle)
    with pytest.raises(ResultsError, match=r"is malformed: record_census\.json: by_type\.LAYER"):
        verify_bundle(bundle)


@pytest.mark.emulated
def test_its_section_its_comparison_and_its_command_show_the_file(
        bundles: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    with_census = bundles[0]
    census = json.loads((with_census / CENSUS).read_text())["by_type"]
    page = bundle_report(load_view(with_census))
    assert '<section class="record-census">' in page and f"LAYER: {census['LAYER']}" in page
    total = sum(census.values())
    assert main(["compare", str(with_census), str(with_census)]) == 0
    assert f"record census: {total} -> {total} records" in capsys.readouterr().out
    assert main(["census", str(with_census)]) == 0
    assert f"LAYER {census['LAYER']}" in capsys.readouterr().out.splitlines()


def test_hpx_plugins_lists_the_pass_and_its_command(installed: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    (census,) = [p for p in listed["passes"] if p["name"] == "record census"]
    assert census["distribution"] == "hpx-sample-pass" and census["version"] == "0.1.0"
    assert census["keys"] == ["profiling.skip_census"]
    assert census["flags"] == ["--skip-census"] and census["files"] == [CENSUS]
    assert {"command": "census", "entry_point": "hpx_sample_pass.command:census",
            "distribution": "hpx-sample-pass"} in listed["commands"]
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "record census" in out and "command hpx census (hpx-sample-pass)" in out

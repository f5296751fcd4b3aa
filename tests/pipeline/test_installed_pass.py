"""A pass another distribution installs (tests/fixtures/plugins/hpx_sample_pass, through its
``hpx.passes`` entry point alone) runs in a real emulated profile: its check refuses before
any fetch, its section and file are in a bundle that verifies, and ``hpx profile`` shows its
column and line.

The loops test engine keeps this in the default session (the real toolchain and QEMU; no
engine sources).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from emulated_firmware import require_tools

from hpx_core import pipeline
from hpx_core.cli import main
from hpx_core.config.command_line import CommandLine
from hpx_core.errors import PluginError, UsageError
from hpx_core.pipeline.passes import installed_passes
from hpx_core.plugins import PASS_GROUP, default_registry, load_registry
from hpx_core.results import verify_bundle

KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")
ITERATIONS = 2


@pytest.fixture
def sample_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The loops engine and the sample pass installed for this process's entry points."""
    from loops_engine import loops_paths
    from sample_pass import sample_pass_paths

    for folder in (*loops_paths(tmp_path / "site"), *sample_pass_paths(tmp_path / "site")):
        monkeypatch.syspath_prepend(str(folder))
    default_registry(reload=True)
    yield
    monkeypatch.undo()
    default_registry(reload=True)


@pytest.mark.usefixtures("sample_installed")
def test_the_installed_pass_is_found_after_the_cores_own() -> None:
    names = [p.name for p in installed_passes(default_registry())]
    assert names[-1] == "record census" and "memory" in names and "layer check" in names


@pytest.mark.usefixtures("sample_installed")
def test_its_check_refuses_before_any_fetch(tmp_path: Path) -> None:
    stages: list[str] = []
    line = CommandLine(model=KWS, engine="loops", board="apollo510_evb", output_dir=tmp_path)
    with pytest.raises(UsageError) as refused:
        pipeline.profile(None, None, line.overrides(), on_stage=stages.append)
    assert "the record census counts emulated runs" in refused.value.message
    assert stages == ["config"]


@pytest.mark.usefixtures("sample_installed")
def test_hpx_config_validate_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    config = tmp_path / "project" / "hpx.yaml"
    config.write_text(f"model: {{path: {KWS}}}\nengine: {{type: loops}}\n"
                      "target: {board: apollo510_evb}\n", encoding="utf-8")
    with pytest.raises(UsageError, match="the record census counts emulated runs"):
        pipeline.check(config)
    assert [p.name for p in config.parent.iterdir()] == ["hpx.yaml"]  # nothing written


@pytest.mark.emulated
@pytest.mark.usefixtures("sample_installed")
def test_it_runs_and_is_recorded_in_the_bundle(tmp_path: Path) -> None:
    from hpx_sample_pass.census import Census

    require_tools()
    line = CommandLine(model=KWS, engine="loops", board="qemu-m55", iterations=ITERATIONS,
                       output_dir=tmp_path)
    outcome = pipeline.profile(None, None, line.overrides())
    assert outcome.record is not None and outcome.measurement is not None
    census = outcome.record.result("record census", Census)
    assert census is not None
    layers = [x.index for x in outcome.measurement.layers]
    assert census.per_layer == dict.fromkeys(layers, ITERATIONS)
    assert census.total == len(outcome.record.capture.records)
    bundle = verify_bundle(outcome.record.bundle)
    assert "record_census.json" in bundle.files
    written = json.loads((bundle.path / "record_census.json").read_text())
    assert written["by_type"] == census.by_type
    summary = json.loads((bundle.path / "summary.json").read_text())
    assert summary["record_census"] == {"file": "record_census.json", "records": census.total}


@pytest.mark.emulated
@pytest.mark.usefixtures("sample_installed")
def test_hpx_profile_shows_its_column_and_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    require_tools()
    code = main(["profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                 "--iterations", str(ITERATIONS), "--output-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    (summary_file,) = tmp_path.rglob("summary.json")
    records = json.loads(summary_file.read_text())["record_census"]["records"]
    table, after = " ".join(out.split()).split("whole inference")
    assert " records " in table  # its column, beside the counts
    assert f"record census: {records} records in the stream" in after


def test_an_entry_point_that_names_no_pass_stops_the_run_naming_it() -> None:
    registry = load_registry(entries=[], pass_entries=[EntryPoint("odd", "os:sep", PASS_GROUP)])
    with pytest.raises(PluginError) as refused:
        installed_passes(registry)
    assert "odd = os:sep" in refused.value.message and "names no uncounted pass" in \
        refused.value.message


def test_a_disabled_pass_is_left_out() -> None:
    from sample_pass import ENTRY

    name, value = (part.strip() for part in ENTRY.split("="))
    entry = EntryPoint(name, value, PASS_GROUP)
    assert load_registry(entries=[], pass_entries=[entry]).passes == (entry,)
    assert load_registry(entries=[], pass_entries=[entry], disabled=[name]).passes == ()

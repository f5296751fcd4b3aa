"""Outputs nobody compared are said wherever a reader looks: ``hpx profile``'s console, the
bundle, ``hpx results show``, the HTML report and ``hpx compare``; a bundle written before hpx
said it still verifies and reads as unknown.

Real runs of the loops test engine on qemu-m55 (no engine sources): once as an engine without
``hpx_result_extras`` (``hpx_loops_engine.bare``), once as one whose ``ResultExtras`` carry no
host outputs, once with a host output to compare.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from emulated_firmware import require_tools
from tampered_bundles import copy_bundle, rehash

from hpx_core.cli import main
from hpx_core.plugins import default_registry
from hpx_core.report.html import bundle_report
from hpx_core.results import verify_bundle
from hpx_core.results.outputs import NO_REFERENCE_OUTPUTS, NO_RESULT_EXTRAS, UNKNOWN
from hpx_core.results.view import load_view

pytestmark = [pytest.mark.emulated]
KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")
PREPARED = 1 + 2 * 1 + 1  # the loops engine's output 0: warm-up, 2 x 1 iteration, memory pass


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Path, str]]]:
    """Each run's bundle and what ``hpx profile`` printed: ``bare`` (no result extras),
    ``plain`` (result extras without host outputs), ``checked`` (one host output)."""
    require_tools()
    from loops_engine import loops_paths

    root = tmp_path_factory.mktemp("outputs")
    found: dict[str, tuple[Path, str]] = {}
    for name, module, flags in (
            ("bare", "hpx_loops_engine.bare", []),
            ("plain", "hpx_loops_engine.plugin", []),
            ("checked", "hpx_loops_engine.plugin",
             ["--engine-config", f"reference_output={PREPARED}"])):
        with pytest.MonkeyPatch.context() as patch:
            for folder in loops_paths(root / f"site-{name}", module):
                patch.syspath_prepend(str(folder))
            default_registry(reload=True)
            found[name] = _profile(root / name, flags)
    default_registry(reload=True)
    yield found


def _profile(out: Path, flags: list[str]) -> tuple[Path, str]:
    text = io.StringIO()
    with contextlib.redirect_stdout(text):  # the console writes to whatever stdout is now
        code = main(["profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                     "--iterations", "1", "--output-dir", str(out), *flags])
    assert code == 0, text.getvalue()
    (bundle,) = (p for p in out.iterdir() if p.is_dir())
    return bundle, " ".join(text.getvalue().split())


def _summary(bundle: Path) -> dict[str, object]:
    found: dict[str, object] = json.loads((bundle / "summary.json").read_text("utf-8"))
    return found


def test_the_bundle_says_the_outputs_were_not_checked_and_why(
        runs: dict[str, tuple[Path, str]]) -> None:
    bare, plain, checked = (_summary(runs[n][0]) for n in ("bare", "plain", "checked"))
    assert bare["outputs"] == {"checked": False, "reason": NO_RESULT_EXTRAS}
    assert plain["outputs"] == {"checked": False, "reason": NO_REFERENCE_OUTPUTS}
    assert checked["outputs"]["checked"] is True  # type: ignore[index]
    assert checked["outputs"]["passed"] is True  # type: ignore[index]
    assert bare["validity"] == plain["validity"] == "valid"  # the counts are still good


def test_hpx_profile_prints_the_state(runs: dict[str, tuple[Path, str]]) -> None:
    assert f"outputs: NOT CHECKED: {NO_RESULT_EXTRAS}" in runs["bare"][1]
    assert f"outputs: NOT CHECKED: {NO_REFERENCE_OUTPUTS}" in runs["plain"][1]
    assert "outputs: exact against the loops engine's claim" in runs["checked"][1]
    assert "NOT CHECKED" not in runs["checked"][1]


def test_results_show_and_the_report_say_not_checked(
        runs: dict[str, tuple[Path, str]], capsys: pytest.CaptureFixture[str]) -> None:
    bundle = runs["bare"][0]
    assert main(["results", "show", str(bundle)]) == 0
    assert "NOT CHECKED" in " ".join(capsys.readouterr().out.split())
    page = bundle_report(load_view(bundle))
    assert 'id="outputs-state"><span class="badge unchecked">not checked' in page
    assert NO_RESULT_EXTRAS in page
    checked = bundle_report(load_view(runs["checked"][0]))
    assert 'id="outputs-state"><span class="badge pass">exact' in checked


def test_compare_says_which_side_was_not_checked(
        runs: dict[str, tuple[Path, str]], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compare", str(runs["checked"][0]), str(runs["bare"][0])])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert re.search(r"outputs\W+exact\W+not checked", out), out
    assert f"note: the candidate's outputs: NOT CHECKED: {NO_RESULT_EXTRAS}" in out
    assert "the base's outputs" not in out
    code = main(["compare", str(runs["checked"][0]), str(runs["checked"][0])])
    assert code == 0 and "NOT CHECKED" not in capsys.readouterr().out


def _written_before(bundle: Path, into: Path) -> Path:
    """``bundle`` as an hpx that recorded neither the outputs' state nor the engine's code
    wrote it: those keys left out, the manifest made to agree."""
    old = copy_bundle(bundle, into)
    summary = _summary(old)
    del summary["outputs"]
    del summary["identity"]["engine_code"]  # type: ignore[attr-defined]
    (old / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    rehash(old)
    return old


def test_a_bundle_written_before_reads_as_unknown(
        runs: dict[str, tuple[Path, str]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    old = _written_before(runs["bare"][0], tmp_path)
    assert verify_bundle(old).status == "complete"
    view = load_view(old)
    assert view.outputs is not None and not view.outputs.checked and not view.outputs.known
    assert view.engine_code is None
    assert main(["results", "show", str(old)]) == 0
    assert UNKNOWN.split(":")[0] in capsys.readouterr().out
    assert '<span class="badge unchecked">unknown' in bundle_report(view)
    code = main(["compare", str(old), str(runs["checked"][0])])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0 and re.search(r"outputs\W+unknown\W+exact", out), out
    assert "note: the base's outputs: unknown" in out

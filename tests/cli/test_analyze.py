"""``hpx analyze``: the table, the JSON document, and errors without tracebacks."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from hpx_core.cli import main
from hpx_core.plugins import default_registry

REPO = Path(__file__).parents[2]
KWS = REPO / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
PTE = REPO / "tests" / "fixtures" / "pte" / "tier1.pte"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_kws_json_has_13_layers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "analyze", str(KWS), "--json")
    assert code == 0
    doc = json.loads(out)
    assert len(doc["layers"]) == 13
    assert doc["layers"][0]["name"] == "CONV_2D"
    assert doc["layers"][0]["outputs"] == [[1, 25, 5, 64]]
    assert doc["totals"]["layers"] == 13
    assert doc["totals"]["macs"] == sum(layer["macs"] or 0 for layer in doc["layers"])
    assert doc["inputs"][0]["shape"] == [1, 49, 10, 1]
    assert doc["format"] == "tflite" and len(doc["sha256"]) == 64


def test_kws_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "analyze", str(KWS))
    assert code == 0
    assert "DEPTHWISE_CONV_2D" in out and "[1, 25, 5, 64]" in out
    assert "13 layers" in out and "2,664,768" in out
    assert "op resolver: AVERAGE_POOL_2D, CONV_2D" in out


def test_absent_fields_are_shown_with_the_engines_that_get_them_supplied(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from legacy_models import toco_style, with_old_while_code

    old = with_old_while_code(toco_style(KWS, tmp_path / "a.tflite"), tmp_path / "old.tflite")
    code, out, _ = _run(capsys, "analyze", str(old))
    assert code == 0
    assert "absent field subgraphs[0].name: hpx supplies it in a copy for helia-aot" in out
    assert ("absent field operator_codes[IF,WHILE].builtin_code: hpx supplies it in a copy for "
            "helia-rt, tflm") in out
    code, out, _ = _run(capsys, "analyze", str(old), "--json")
    assert json.loads(out)["absent_fields"] == ["subgraphs[0].name",
                                                "operator_codes[IF,WHILE].builtin_code"]
    _, out, _ = _run(capsys, "analyze", str(KWS))
    assert "absent field" not in out


def test_pte_shows_namespaces_and_the_engines_notes(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    import ptebuild
    path = tmp_path / "tier1.pte"
    path.write_bytes(ptebuild.build_program(ptebuild.sample_spec()))
    code, out, _ = _run(capsys, "analyze", str(path))
    assert code == 0
    assert "portable ops (executorch): aten::leaky_relu.out" in out
    assert "needs ns_ops (executorch)" in out
    assert "operator namespaces: aten 1, cortex_m 2, cortex_m_ns 1" in out
    code, out, _ = _run(capsys, "analyze", str(path), "--json")
    doc = json.loads(out)
    assert doc["namespaces"] == {"cortex_m": 2, "cortex_m_ns": 1, "aten": 1}
    assert doc["engine_notes"]["executorch"]["portable ops"] == "aten::leaky_relu.out"
    assert "needs ns_ops" in doc["engine_notes"]["executorch"]
    assert [layer["namespace"] for layer in doc["layers"]] == [
        "cortex_m", "cortex_m_ns", "cortex_m", "aten",
    ]  # fmt: skip


def test_bad_model_is_two_lines_and_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.tflite"
    path.write_bytes(b"\0" * 100)
    code, _, err = _run(capsys, "analyze", str(path))
    assert code == 1
    assert err.startswith("error: bad.tflite: no installed plugin reads this .tflite file "
                          "(file identifier b'\\x00\\x00\\x00\\x00' at byte 4)")
    assert ("\nhint: formats installed plugins read: kernelbench (kernelbench), pte "
            "(executorch), tflite (core, helia-aot, helia-rt, ") in err
    assert err.rstrip().endswith("check the path, or re-export the model")
    assert "Traceback" not in err


def test_a_format_no_plugin_reads_says_to_install_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the plugin of a program's format, the core does not read it: the error names
    the suffix, what is installed and what to install."""
    monkeypatch.setenv("HPX_DISABLE_PLUGINS", "executorch")
    default_registry(reload=True)
    try:
        code, _, err = _run(capsys, "analyze", str(PTE))
    finally:
        monkeypatch.delenv("HPX_DISABLE_PLUGINS")
        default_registry(reload=True)
    assert code == 1
    assert err.startswith(f"error: {PTE.name}: no installed plugin reads this .pte file "
                          "(file identifier b'ET12' at byte 4)")
    assert "disabled by HPX_DISABLE_PLUGINS: executorch (hpx-executorch)" in err
    assert "install the engine plugin that reads .pte files" in err
    assert "pte (" not in err  # no installed engine reads it


def test_a_file_no_engine_reads_says_which_engines_are_disabled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_DISABLE_PLUGINS", "kernelbench")
    default_registry(reload=True)
    path = tmp_path / "kernels.yaml"
    path.write_text("kernels: []\n")
    try:
        code, _, err = _run(capsys, "analyze", str(path))
    finally:
        monkeypatch.delenv("HPX_DISABLE_PLUGINS")
        default_registry(reload=True)
    assert code == 1 and "disabled by HPX_DISABLE_PLUGINS: kernelbench" in err


def test_pte_sidecar_verified_or_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fixture = REPO / "tests" / "fixtures" / "pte" / "tier1.pte"
    path = tmp_path / "tier1.pte"
    path.write_bytes(fixture.read_bytes())
    sidecar = tmp_path / "tier1.pte.json"
    manifest = {
        "schema": "nsx-executorch.pte-manifest/1",
        "pte_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "kernel_provider": "arm",
        "requires_ns_ops": False,
        "operators": {"portable": ["aten::leaky_relu.out"]},
    }
    sidecar.write_text(json.dumps(manifest), encoding="utf-8")
    code, out, _ = _run(capsys, "analyze", str(path))
    assert code == 0 and "sidecar (executorch): tier1.pte.json (sha256 verified)" in out
    manifest["pte_sha256"] = "0" * 64
    sidecar.write_text(json.dumps(manifest), encoding="utf-8")
    code, out, err = _run(capsys, "analyze", str(path))
    assert code == 2 and out == ""
    assert "describes a different program" in err and "\nhint: re-export" in err


def test_an_engines_own_format_shows_no_pte_lines(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("hpx_kernelbench")
    code, out, _ = _run(capsys, "analyze", str(REPO / "examples/engines/kernelbench/kernels.yaml"))
    assert code == 0 and "format kernelbench" in out
    assert "operator namespaces" not in out and "planned memory" not in out

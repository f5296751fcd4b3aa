"""Reading a model through the plugins: the core's .tflite reader is one of them, a file none
reads is refused once, naming what is installed and what to install."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.errors import ModelError
from hpx_core.plugins import default_registry, load_registry
from hpx_core.reading import OTHER_FORMAT, UnreadFormatError, load_model, model_format

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
PTE = REPO / "tests" / "fixtures" / "pte" / "tier1.pte"


def test_a_file_no_plugin_reads_names_its_suffix_the_formats_and_what_to_install(
    tmp_path: Path,
) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"\x08\0\0\0ONNX" + bytes(32))
    with pytest.raises(UnreadFormatError) as err:
        load_model(path, default_registry())
    assert err.value.message == ("model.onnx: no installed plugin reads this .onnx file "
                                 "(file identifier b'ONNX' at byte 4)")
    assert "tflite (core, " in err.value.hint and "pte (executorch)" in err.value.hint
    assert err.value.hint.endswith("install the engine plugin that reads .onnx files "
                                   "(`hpx plugins` lists the installed ones)")


def test_without_plugins_the_core_reads_tflite_and_only_tflite() -> None:
    bare = load_registry(no_plugins=True)
    assert load_model(KWS, bare).format == "tflite"
    with pytest.raises(UnreadFormatError) as err:
        load_model(PTE, bare)
    assert "formats installed plugins read: tflite (core);" in err.value.hint
    assert "install the engine plugin that reads .pte files" in err.value.hint


def test_a_file_too_short_for_any_format(tmp_path: Path) -> None:
    path = tmp_path / "empty.tflite"
    path.write_bytes(b"TFL")
    with pytest.raises(UnreadFormatError, match=r"3 bytes, too short to be a model") as err:
        load_model(path)
    assert err.value.hint.endswith("check the path, or re-export the model")


def test_model_format_as_the_plugins_read_it(tmp_path: Path) -> None:
    unread = tmp_path / "notes.txt"
    unread.write_text("no model here, at all\n", encoding="utf-8")
    broken = tmp_path / "cut.tflite"
    broken.write_bytes(KWS.read_bytes()[:1000])
    assert model_format(KWS) == "tflite"
    assert model_format(PTE) == "pte"
    assert model_format(unread) == OTHER_FORMAT
    assert model_format(broken) is None  # a reader's file, but broken: the run says why
    assert model_format(tmp_path / "absent.tflite") is None
    with pytest.raises(ModelError, match="malformed TFLite model"):
        load_model(broken)

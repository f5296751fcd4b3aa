"""An engine's view of a model is read once per content, not once per hook."""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.models import ModelInfo
from hpx_core.models.views import KEPT, model_view
from hpx_core.reading import load_model

ROOT = Path(__file__).resolve().parents[2]
KWS = ROOT / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
VWW = ROOT / "examples" / "models" / "mlperf_tiny" / "vww_96_int8.tflite"

reads: list[str] = []


def first_bytes(model: ModelInfo) -> bytes:
    reads.append(model.sha256)
    return Path(model.path).read_bytes()[:8]


def test_the_view_is_read_once_for_a_models_content() -> None:
    reads.clear()
    kws, vww = load_model(KWS), load_model(VWW)
    assert model_view(kws, first_bytes) == KWS.read_bytes()[:8]
    assert model_view(kws, first_bytes) is model_view(kws, first_bytes)
    assert model_view(vww, first_bytes) == VWW.read_bytes()[:8]
    assert reads == [kws.sha256, vww.sha256]
    changed = attrs.evolve(kws, sha256="0" * 64)  # another content: read anew
    model_view(changed, first_bytes)
    assert reads[-1] == "0" * 64


def test_a_view_the_reader_already_made_is_kept_and_old_ones_leave() -> None:
    reads.clear()
    kws = attrs.evolve(load_model(KWS), sha256="1" * 64)
    assert model_view(kws, first_bytes, known=b"parsed") == b"parsed"
    assert model_view(kws, first_bytes) == b"parsed" and reads == []
    for n in range(KEPT):
        model_view(attrs.evolve(kws, sha256=f"{n:064d}"), first_bytes)
    model_view(kws, first_bytes)
    assert reads[-1] == "1" * 64  # pushed out by KEPT newer ones, so read again

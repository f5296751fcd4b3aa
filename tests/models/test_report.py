"""The JSON document of an analysis: plain data, layers and totals."""

from __future__ import annotations

import json
from pathlib import Path

from hpx_core.models.report import model_report
from hpx_core.reading import load_model

REPO = Path(__file__).parents[2]


def test_tflite_report_is_plain_json() -> None:
    info = load_model(REPO / "examples" / "models" / "mlperf_tiny" / "ad01_int8.tflite")
    doc = json.loads(json.dumps(model_report(info)))
    assert doc["path"].endswith("ad01_int8.tflite")
    assert [layer["name"] for layer in doc["layers"]] == ["FULLY_CONNECTED"] * 10
    # 640 -> 128 x4 (one 640x128 and three 128x128 layers), -> 8, -> 128, 128 x3, -> 640
    expected = 640 * 128 + 3 * 128 * 128 + 128 * 8 + 8 * 128 + 3 * 128 * 128 + 128 * 640
    assert doc["totals"]["macs"] == expected == 264_192
    assert doc["totals"]["macs_not_counted"] == []
    assert "namespaces" not in doc

"""Device-against-host figures per output, checked against numbers worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hpx_core.models.info import Quantization, TensorInfo
from hpx_core.validation.metrics import OutputScore, histogram

SCORES = TensorInfo("Identity", "int8", (1, 4), 4, Quantization((0.5,), (-128,)))


def _bytes(*values: int) -> bytes:
    return np.array(values, dtype=np.int8).tobytes()


def test_an_exact_sample_scores_zero_error_and_agrees() -> None:
    score = OutputScore(SCORES, top_k=2)
    said = score.add(0, _bytes(-128, 10, 5, -128), _bytes(-128, 10, 5, -128), label=1)
    assert said == {"max_abs_diff": 0.0, "differing": 0, "device_top1": 1, "host_top1": 1}
    doc = score.document()
    assert doc["mean_abs_error"] == 0 and doc["rmse"] == 0
    assert doc["cosine"] == pytest.approx(1.0)
    assert doc["top1_agreement"] == 1.0 and doc["differing_samples"] == 0
    assert doc["accuracy"] == {"labelled": 1, "k": 2, "device_top1": 1.0, "host_top1": 1.0,
                               "device_topk": 1.0, "host_topk": 1.0}


def test_differences_are_scored_on_dequantized_values_and_counted_in_raw_units() -> None:
    score = OutputScore(SCORES, top_k=2)
    score.add(0, _bytes(0, 4, -128, -128), _bytes(0, 0, -128, -128), label=None)
    score.add(1, _bytes(-128, -128, -128, 2), _bytes(-128, -128, -128, 0), label=None)
    doc = score.document()
    # raw differences 4 and 2 are 2.0 and 1.0 in real units (scale 0.5)
    assert doc["mean_abs_error"] == pytest.approx((2.0 + 1.0) / 8)
    assert doc["rmse"] == pytest.approx(math.sqrt((4.0 + 1.0) / 8))
    host_real = [(0 + 128) * 0.5, 64.0, (0 + 128) * 0.5]  # non-zero host values
    assert doc["l2_relative"] == pytest.approx(math.sqrt(5.0) / math.sqrt(
        sum(v * v for v in host_real)))
    assert doc["differing_elements"] == 2 and doc["differing_share"] == 2 / 8
    assert doc["max_abs_diff"] == 4.0 and doc["differing_samples"] == 2
    assert doc["worst"] == [{"sample": 0, "max_abs_diff": 4.0}, {"sample": 1, "max_abs_diff": 2.0}]
    # sample 0: device [64, 66, 0, 0] -> class 1, host [64, 64, 0, 0] -> class 0 (first max)
    assert doc["top1_agreement"] == 0.5
    assert "accuracy" not in doc


def test_a_score_of_minus_128_ranks_last_not_first() -> None:
    score = OutputScore(SCORES, top_k=1)
    said = score.add(0, _bytes(-128, -128, 3, -128), _bytes(-128, -128, 3, -128), label=2)
    assert said["device_top1"] == 2
    assert score.document()["accuracy"]["device_top1"] == 1.0


def test_the_histogram_bins_the_per_sample_largest_difference() -> None:
    found = histogram([0.0, 0.0, 1.0, 20.0])
    assert found["counts"][0] == 2 and found["counts"][1] == 1 and found["counts"][-1] == 1
    assert found["edges"][0] == 0.0 and found["edges"][-1] == pytest.approx(20.0)
    assert histogram([0.0, 0.0]) == {"edges": [0.0, 0.0], "counts": [2]}

"""A data set read for the device: the MLPerf Tiny KWS model's input, the project's own
espeak-ng data set, and every bad input a user can hand over refused naming the file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hpx_core.errors import ConfigError
from hpx_core.models.info import ModelInfo
from hpx_core.reading import load_model
from hpx_core.validation.data import load_data, quantize

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
DATA = REPO / "examples" / "datasets" / "kws" / "kws_espeak_200.npz"


@pytest.fixture(scope="module")
def kws() -> ModelInfo:
    return load_model(KWS)


def test_the_espeak_data_set_is_200_labelled_float_samples_quantized_with_the_models_own(
        kws: ModelInfo) -> None:
    data = load_data(DATA, kws.inputs)
    assert data.count == 200 and data.labels is not None and len(data.labels) == 200
    assert set(data.labels) == set(range(12))  # every class of the model
    (tensor,) = kws.inputs
    assert tensor.quantization is not None
    scale, zero = tensor.quantization.scales[0], tensor.quantization.zero_points[0]
    assert data.notes == (f"float data quantized for input {tensor.name} with the model's "
                          f"scale {scale:g} and zero point {zero}",)
    features = np.load(DATA)["features"]
    first = next(data.samples())
    expected = np.clip(np.round(features[0].astype(np.float64) / scale) + zero, -128, 127)
    assert first == (expected.astype(np.int8).tobytes(),)
    assert len(first[0]) == tensor.size_bytes == 490
    assert sum(1 for _ in data.samples()) == 200
    assert data.saturation.shares()[tensor.name] < 0.01  # the features are in the model's units


def test_limit_and_a_start_index_take_the_samples_in_order(kws: ModelInfo) -> None:
    data = load_data(DATA, kws.inputs, limit=7)
    assert data.count == 7 and data.labels is not None and len(data.labels) == 7
    everything = list(load_data(DATA, kws.inputs).samples())
    assert list(data.samples()) == everything[:7]
    assert list(data.samples(start=5)) == everything[5:7]


def test_a_folder_of_npy_and_bin_samples_reads_in_name_order(kws: ModelInfo,
                                                             tmp_path: Path) -> None:
    raw = np.arange(490, dtype=np.int64).astype(np.int8).reshape(1, 49, 10, 1)
    np.save(tmp_path / "a.npy", raw)  # one sample with the batch axis
    np.save(tmp_path / "b.npy", np.stack([raw[0], raw[0] + 1]))  # a batch of two
    (tmp_path / "c.bin").write_bytes(bytes(range(256)) + bytes(234))
    data = load_data(tmp_path, kws.inputs, labels=None)
    samples = list(data.samples())
    assert data.count == 4 and data.notes == () and data.labels is None
    assert samples[0] == (raw.tobytes(),) and samples[2] == ((raw + 1).tobytes(),)
    assert samples[3] == (bytes(range(256)) + bytes(234),)


def test_labels_from_a_text_file(kws: ModelInfo, tmp_path: Path) -> None:
    labels = tmp_path / "labels.txt"
    labels.write_text("\n".join(str(i % 12) for i in range(200)) + "\n")
    data = load_data(DATA, kws.inputs, labels=labels)
    assert data.labels == tuple(i % 12 for i in range(200))


def test_quantize_saturates_and_counts_what_fell_outside(kws: ModelInfo) -> None:
    (tensor,) = kws.inputs
    values, clipped = quantize(np.array([-1e6, 0.0, 1e6]), tensor)
    assert values.tolist() == [-128, tensor.quantization.zero_points[0], 127]  # type: ignore[union-attr]
    assert clipped == 2


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda d: np.save(d / "x.npy", np.zeros((3, 49, 11, 1), np.float32)),
         "x.npy: shape [3, 49, 11, 1], input input_1 takes [1, 49, 10, 1]"),
        (lambda d: np.save(d / "x.npy", np.zeros((3, 49, 10, 1), np.int16)),
         "x.npy: dtype int16, input input_1 takes int8"),
        (lambda d: np.save(d / "x.npy", np.full((2, 49, 10, 1), np.nan, np.float32)),
         "x.npy: NaN or infinity at index [0, 0, 0, 0]"),
        (lambda d: (d / "x.bin").write_bytes(bytes(489)),
         "x.bin holds 489 bytes; one sample of this model is 490"),
        (lambda d: (d / "notes.txt").write_text("nothing"), "holds no .npy or .bin files"),
    ],
    ids=["shape", "dtype", "nan", "bin-size", "empty-folder"],
)
def test_each_bad_input_is_one_error_naming_the_file(kws: ModelInfo, tmp_path: Path, make: object,
                                                     said: str) -> None:
    make(tmp_path)  # type: ignore[operator]
    with pytest.raises(ConfigError) as caught:
        load_data(tmp_path, kws.inputs)
    assert said in caught.value.message
    assert caught.value.hint


def test_a_label_file_of_another_length_is_refused_naming_it(kws: ModelInfo,
                                                             tmp_path: Path) -> None:
    labels = tmp_path / "labels.npy"
    np.save(labels, np.zeros(199, dtype=np.int64))
    with pytest.raises(ConfigError) as caught:
        load_data(DATA, kws.inputs, labels=labels)
    assert caught.value.message == f"{labels} holds 199 labels for 200 samples"


def test_a_missing_data_set_is_refused(kws: ModelInfo, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="data set not found"):
        load_data(tmp_path / "absent.npz", kws.inputs)


def test_the_data_digest_follows_the_files_and_the_labels(tmp_path: Path) -> None:
    from hpx_core.validation.data import data_digest

    copy = tmp_path / "set.npz"
    copy.write_bytes(DATA.read_bytes())
    labels = tmp_path / "labels.txt"
    labels.write_text("1\n")
    first = data_digest(copy)
    assert data_digest(DATA) == first  # the content, not the place
    assert data_digest(copy, labels) != first
    copy.write_bytes(DATA.read_bytes() + b"\0")
    assert data_digest(copy) != first

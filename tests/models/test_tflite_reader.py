"""The TFLite reader against the four real MLPerf Tiny models."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hpx_core.errors import ModelError
from hpx_core.reading import load_model

MODELS = Path(__file__).parents[2] / "examples" / "models" / "mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"
VWW = MODELS / "vww_96_int8.tflite"
IC = MODELS / "pretrainedResnet_quant.tflite"
AD = MODELS / "ad01_int8.tflite"

CONV, DW, FC = "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"
HEAD = ["AVERAGE_POOL_2D", "RESHAPE", FC, "SOFTMAX"]

# The published architectures (MLPerf Tiny reference models):
# KWS DS-CNN: a standard conv, then four depthwise-separable blocks (depthwise + 1x1 conv).
KWS_OPS = [CONV] + [DW, CONV] * 4 + HEAD
# VWW MobileNetV1 0.25: a standard conv, then 13 depthwise-separable blocks.
VWW_OPS = [CONV] + [DW, CONV] * 13 + HEAD
# IC ResNet-8: a stem conv, three residual stages. Stage 1 has an identity shortcut; stages 2
# and 3 downsample, with a 1x1 conv on the shortcut, converted in the order conv, conv, conv.
IC_OPS = [CONV] + [CONV, CONV, "ADD"] + [CONV, CONV, CONV, "ADD"] * 2 + HEAD
# AD: a fully connected autoencoder, 640 -> 128 x4 -> 8 -> 128 x4 -> 640.
AD_OPS = [FC] * 10


@pytest.mark.parametrize(
    ("path", "ops"),
    [(KWS, KWS_OPS), (VWW, VWW_OPS), (IC, IC_OPS), (AD, AD_OPS)],
    ids=["kws", "vww", "ic", "ad"],
)
def test_operator_sequence(path: Path, ops: list[str]) -> None:
    info = load_model(path)
    assert [op.name for op in info.operators] == ops
    assert [op.index for op in info.operators] == list(range(len(ops)))
    assert info.resolver_ops == tuple(sorted(set(ops)))


def test_operator_counts_match_the_issue() -> None:
    names = [op.name for op in load_model(KWS).operators]
    assert len(names) == 13
    assert (names.count(CONV), names.count(DW)) == (5, 4)
    assert len(load_model(VWW).operators) == 31
    assert len(load_model(IC).operators) == 16
    assert len(load_model(AD).operators) == 10


@pytest.mark.parametrize(
    ("path", "in_shape", "out_shape"),
    [
        (KWS, (1, 49, 10, 1), (1, 12)),
        (VWW, (1, 96, 96, 3), (1, 2)),
        (IC, (1, 32, 32, 3), (1, 10)),
        (AD, (1, 640), (1, 640)),
    ],
    ids=["kws", "vww", "ic", "ad"],
)
def test_io_shapes_and_sizes(
    path: Path, in_shape: tuple[int, ...], out_shape: tuple[int, ...]
) -> None:
    info = load_model(path)
    assert [t.shape for t in info.inputs] == [in_shape]
    assert [t.shape for t in info.outputs] == [out_shape]
    assert all(t.dtype == "int8" for t in info.inputs + info.outputs)
    # int8: one byte per element
    assert info.inputs[0].size_bytes == _prod(in_shape)
    assert info.outputs[0].size_bytes == _prod(out_shape)
    assert info.inputs[0].quantization is not None


def _prod(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def test_kws_macs_by_hand() -> None:
    # KWS DS-CNN layer shapes (NHWC), from the model's published architecture:
    #   input 49x10x1; conv 10x4 stride 2 -> 25x5x64; 4 x (dw 3x3 -> 25x5x64, pw 1x1 -> 25x5x64);
    #   average pool 25x5 -> 1x1x64; FC 64 -> 12.
    # Output positions of every 25x5x64 layer: 25*5*64 = 8,000.
    # conv0:  8,000 outputs * (10*4*1) products      = 320,000
    # dw x4:  8,000 outputs * (3*3) products          =  72,000 each,  288,000 total
    # pw x4:  8,000 outputs * (1*1*64) products       = 512,000 each, 2,048,000 total
    # pool:   64 outputs * (25*5) inputs accumulated  =   8,000
    # FC:     12 outputs * 64 products                =     768
    # total                                           = 2,664,768
    # (conv + depthwise + FC only: 2,656,768, the usual "2.7 M MACs" of DS-CNN small)
    info = load_model(KWS)
    macs = [op.macs for op in info.operators]
    assert macs == [320_000] + [72_000, 512_000] * 4 + [8_000, 0, 768, None]
    assert info.total_macs == 2_664_768
    assert sum(op.macs or 0 for op in info.operators if op.name in (CONV, DW, FC)) == 2_656_768


def test_vww_macs_from_the_architecture() -> None:
    # MobileNetV1 0.25 on 96x96x3. Each depthwise-separable block: dw 3x3 (stride s), then pw 1x1.
    # Per layer: output H*W*C times products per output (conv kh*kw*Cin, dw 9, pw Cin, FC in).
    blocks = [  # (output H=W after the dw, Cin, Cout)
        (48, 8, 16), (24, 16, 32), (24, 32, 32), (12, 32, 64), (12, 64, 64), (6, 64, 128),
        (6, 128, 128), (6, 128, 128), (6, 128, 128), (6, 128, 128), (6, 128, 128),
        (3, 128, 256), (3, 256, 256),
    ]  # fmt: skip
    expected: list[int | None] = [48 * 48 * 8 * (3 * 3 * 3)]  # stem conv, stride 2
    for hw, cin, cout in blocks:
        expected += [hw * hw * cin * 9, hw * hw * cout * cin]
    expected += [256 * (3 * 3), 0, 2 * 256, None]  # pool 3x3, reshape, FC 256->2, softmax
    macs = [op.macs for op in load_model(VWW).operators]
    assert macs == expected
    assert sum(m or 0 for m in expected) == 7_491_968  # ~7.49 M, the published figure


def test_ic_macs_from_the_architecture() -> None:
    # ResNet-8 on 32x32x3: 3x3 convs; stages 2 and 3 halve H, W with stride 2 and add a 1x1
    # shortcut conv. ADD: one per output element.
    expected = [
        32 * 32 * 16 * (3 * 3 * 3),  # stem
        32 * 32 * 16 * (3 * 3 * 16), 32 * 32 * 16 * (3 * 3 * 16), 32 * 32 * 16,  # stage 1
        16 * 16 * 32 * (3 * 3 * 16), 16 * 16 * 32 * (3 * 3 * 32), 16 * 16 * 32 * 16,
        16 * 16 * 32,  # stage 2: conv s2, conv, 1x1 shortcut, add
        8 * 8 * 64 * (3 * 3 * 32), 8 * 8 * 64 * (3 * 3 * 64), 8 * 8 * 64 * 32, 8 * 8 * 64,
        64 * (8 * 8), 0, 10 * 64, None,  # pool 8x8, reshape, FC 64->10, softmax
    ]  # fmt: skip
    assert [op.macs for op in load_model(IC).operators] == expected
    assert sum(m or 0 for m in expected) == 12_534_400  # ~12.5 M, the published figure


def test_kws_params_and_weight_bytes_by_hand() -> None:
    # params = weights + biases:
    # conv0 64*(10*4*1) + 64 = 2,624; dw 64*9 + 64 = 640; pw 64*64 + 64 = 4,160; FC 12*64 + 12 = 780
    # total 2,624 + 4*640 + 4*4,160 + 780 = 22,604
    info = load_model(KWS)
    assert [op.params for op in info.operators] == ([2_624] + [640, 4_160] * 4 + [0, 0, 780, 0])
    assert info.total_params == 22_604
    # bytes: int8 weights + int32 biases + RESHAPE's int32[2] shape argument:
    # conv0 2,560 + 256; dw 576 + 256 (x4); pw 4,096 + 256 (x4); FC 768 + 48; shape 8
    # = 2,816 + 3,328 + 17,408 + 816 + 8 = 24,376
    assert info.weight_bytes == 24_376


def test_identity_and_metadata() -> None:
    sums = {}
    for line in (MODELS / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        sums[name] = digest
    info = load_model(KWS)
    assert info.format == "tflite"
    assert info.sha256 == sums[KWS.name] == hashlib.sha256(KWS.read_bytes()).hexdigest()
    assert info.size_bytes == KWS.stat().st_size == 53_936
    assert info.var_handle_count == 0
    assert info.subgraph_count == 1
    assert [op.version for op in info.operators][:2] == [3, 3]
    assert info.operators[0].outputs == ((1, 25, 5, 64),)
    assert info.operators[0].inputs == ((1, 49, 10, 1), (64, 10, 4, 1), (64,))


def test_format_comes_from_the_identifier_not_the_name(tmp_path: Path) -> None:
    renamed = tmp_path / "kws.pte"
    renamed.write_bytes(KWS.read_bytes())
    assert load_model(renamed).format == "tflite"


@pytest.mark.parametrize(
    "data",
    [b"", b"TFL3", b"\0\0\0\0TFL3", b"\x10\0\0\0TFL3" + b"\xff" * 40, b"\0" * 64],
    ids=["empty", "short", "header-only", "garbage-root", "zeros"],
)
def test_broken_files_raise_model_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "broken.tflite"
    path.write_bytes(data)
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert err.value.hint


@pytest.mark.parametrize("cut", [8, 100, 1000, 20_000, 53_000])
def test_truncated_model_raises_model_error(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "cut.tflite"
    path.write_bytes(KWS.read_bytes()[:cut])
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert err.value.hint


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not found"):
        load_model(tmp_path / "absent.tflite")
    with pytest.raises(ModelError, match="is a folder, not a file"):
        load_model(tmp_path)


def test_too_short_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.tflite"
    path.write_bytes(b"TFL")
    with pytest.raises(ModelError, match="3 bytes, too short to be a model"):
        load_model(path)


def test_wrong_identifier_names_the_formats(tmp_path: Path) -> None:
    path = tmp_path / "model.tflite"
    path.write_bytes(b"\x08\0\0\0ONNX" + bytes(32))
    with pytest.raises(ModelError, match=r"no installed plugin reads this \.tflite file") as err:
        load_model(path)
    assert "b'ONNX' at byte 4" in err.value.message
    assert "tflite (core" in err.value.hint and "check the path" in err.value.hint

"""The kernelbench model reader: the example file, every malformed-file message, fuzzing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("hpx_kernelbench")

from hpx_kernelbench.engine import read_benchmark
from hpx_kernelbench.kernels import Conv2d, FullyConnected, macs, params
from hpx_kernelbench.model import read_kernels

from hpx_core.contract import ModelRequest
from hpx_core.errors import ModelError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "kernelbench"
KERNELS = EXAMPLE / "kernels.yaml"
HEAD = "kernelbench: 1\ninput: [1, 8, 8, 4]\nkernels:\n"
CONV = "  - name: a\n    op: conv2d\n    filter: [8, 3, 3, 4]\n"


def test_the_example_reads_with_every_shape_derived() -> None:
    kernels = read_kernels(KERNELS, KERNELS.read_bytes())
    assert kernels.names == ("conv3x3", "conv3x3_s2", "pointwise", "classifier")
    conv, strided, pointwise, fc = kernels.calls
    assert isinstance(conv, Conv2d) and conv.output == (1, 16, 16, 16) and conv.pads == (1, 1)
    assert isinstance(strided, Conv2d) and strided.output == (1, 8, 8, 32)
    assert strided.pads == (0, 0)  # one row of padding in total: it goes after the input
    assert isinstance(pointwise, Conv2d) and pointwise.output == (1, 8, 8, 32)
    assert isinstance(fc, FullyConnected) and fc.depth == 2048 and fc.output == (1, 10)
    assert [macs(c) for c in kernels.calls] == [294_912, 294_912, 65_536, 20_480]
    assert [params(c) for c in kernels.calls] == [1_168, 4_640, 1_056, 20_490]


def test_the_model_stage_answers_one_operator_per_call() -> None:
    data = KERNELS.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    info = read_benchmark(ModelRequest(KERNELS, data, sha))
    assert info is not None
    assert info.format == "kernelbench" and info.sha256 == sha and info.size_bytes == len(data)
    assert [op.name for op in info.operators] == ["conv2d"] * 3 + ["fully_connected"]
    assert info.operators[1].inputs == ((1, 16, 16, 16),)
    assert info.inputs[0].shape == (1, 16, 16, 8) and info.outputs[0].shape == (1, 10)
    assert info.outputs[0].name == "classifier" and info.total_macs == 675_840
    assert read_benchmark(ModelRequest(Path("model.bin"), data, sha)) is None


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("kernelbench: 1\ninput: [1, 8, 8, 4\nkernels:\n", "3:8", "invalid YAML"),
        (HEAD + "  - name: a\n    op: conv2d\n    filtr: [8, 3, 3, 4]\n", "6:5",
         "did you mean 'filter'"),
        (HEAD + "  - name: a\n    op: conv2d\n    filter: [8, 3, 3, 3]\n", "6:13",
         "3 input channels but its input [1, 8, 8, 4] has 4"),
        (HEAD + "  - name: a\n    op: conv3d\n", "5:9", "did you mean 'conv2d'"),
        (HEAD + CONV + CONV, "7:11", "used twice"),
        (HEAD + "  - name: f\n    op: fully_connected\n    units: 4\n"
         + CONV.replace("name: a", "name: b"), "8:9", "conv2d needs an NHWC input"),
        (HEAD + "  - name: a\n    op: conv2d\n    filter: [8, 9, 9, 4]\n    padding: valid\n",
         "6:13", "does not fit"),
        (HEAD + CONV + "    padding: full\n", "7:14", "same or valid"),
        (HEAD + CONV + "    stride: [1, 2, 3]\n", "7:13", "[stride_h, stride_w]"),
        ("kernelbench: 2\ninput: [1, 8, 8, 4]\nkernels: []\n", "1:14", "format version 2"),
        ("kernelbench: 1\ninput: [1, 8, 8, true]\nkernels: []\n", "2:18", "must be an integer"),
        ("kernelbench: 1\ninput: [1, 8, 8, 4]\nkernels: []\n", "3:10", "non-empty list"),
        ("kernelbench: 1\ninput: [1, 8, 8, 0]\nkernels: []\n", "2:18", "within [1, 4096]"),
        (HEAD + "  - op: conv2d\n", "4:5", "has no `name`"),
    ],
)
def test_a_malformed_file_names_its_line_and_a_fix(tmp_path: Path, text: str, where: str,
                                                   words: str) -> None:
    path = tmp_path / "kernels.yaml"
    with pytest.raises(ModelError) as caught:
        read_kernels(path, text.encode())
    assert caught.value.message.startswith(f"{path}:{where}: "), caught.value.message
    assert words in caught.value.message
    assert caught.value.hint


def test_another_engines_yaml_is_not_claimed() -> None:
    data = b"layers:\n  - dense: 4\n"
    sha = hashlib.sha256(data).hexdigest()
    assert read_benchmark(ModelRequest(Path("other.yaml"), data, sha)) is None


@pytest.mark.parametrize(("data", "words"), [
    (b"- just\n- a list\n", "top level must be a mapping"),
    (b"\xff\xfe", "not UTF-8"),
    (b"", "top level must be a mapping"),
])
def test_a_file_that_is_no_benchmark_at_all(tmp_path: Path, data: bytes, words: str) -> None:
    with pytest.raises(ModelError, match=words):
        read_kernels(tmp_path / "k.yaml", data)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_damaged_files_give_a_model_error_never_a_crash(data: st.DataObject) -> None:
    text = KERNELS.read_text(encoding="utf-8")
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 12)))
    insert = data.draw(st.text(alphabet="[]{}:-, 0123456789abcxyz\n\t'\"", max_size=8))
    damaged = (text[:start] + insert + text[end:]).encode()
    try:
        read_kernels(KERNELS, damaged)
    except ModelError as error:
        assert error.message and error.hint

"""The ETDump the firmware writes, read without torch: the recorded one of tier1_arm.pte.

The fixture is what a real qemu-m55 run with ``--check-layers`` wrote into its bundle
(``tools/export/executorch_tier1/record_etdump_fixture.py``); it is read with Python that
``flatc`` generates from ExecuTorch's own schema, as ExecuTorch's Inspector reads it, and held
against the layer table hpx makes from the program. The schema comes from the pinned ExecuTorch
checkout, so these run with the engine sources (``nox -s e2e``).
"""

from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np
import pytest
from etdump_reader import Block, DebugTensor, read_etdump
from hpx_executorch.layers import layer_table

from hpx_core.reading import load_model

from .conftest import TIER1

pytestmark = pytest.mark.e2e
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "executorch_etdump"
TABLE = layer_table(load_model(TIER1 / "tier1_arm.pte"))


@pytest.fixture(scope="module")
def blocks() -> list[Block]:
    return read_etdump((FIXTURE / "tier1_arm.etdp").read_bytes())


@pytest.fixture(scope="module")
def debug() -> bytes:
    return lzma.decompress((FIXTURE / "tier1_arm.debug.bin.xz").read_bytes())


def test_a_block_for_loading_the_method_and_one_for_its_inference(blocks: list[Block]) -> None:
    assert [b.name for b in blocks] == ["Default", "Execute"]
    assert {e.name for e in blocks[0].profile} == {"Program::load_method", "Method::init"}


def test_every_layer_is_one_operator_call_at_its_instruction(blocks: list[Block]) -> None:
    events = blocks[1].profile
    calls = [(e.chain, e.instruction) for e in events if e.name == "OPERATOR_CALL"]
    assert calls == [(layer.chain, layer.instruction) for layer in TABLE.layers]
    for layer in TABLE.layers:
        (native,) = [e for e in events if e.name.startswith("native_call_")
                     and (e.chain, e.instruction) == (layer.chain, layer.instruction)]
        assert native.name == f"native_call_{layer.op.split('::')[1]}.out"


def test_the_timestamps_are_the_counter_s_not_zero(blocks: list[Block]) -> None:
    events = blocks[1].profile
    (whole,) = [e for e in events if e.name == "Method::execute"]
    assert all(whole.start <= e.start <= e.end <= whole.end for e in events)
    calls = [e for e in events if e.name == "OPERATOR_CALL"]
    assert all(e.end > e.start for e in calls)
    assert [e.start for e in calls] == sorted(e.start for e in calls)


def test_each_layer_s_output_and_the_program_output_are_in_the_debug_buffer(
        blocks: list[Block], debug: bytes) -> None:
    tensors = blocks[1].tensors
    logged = [(t.chain, t.instruction) for t in tensors if not t.output]
    assert logged == [(layer.chain, layer.instruction) for layer in TABLE.layers]
    assert [t.output for t in tensors] == [False] * len(TABLE.layers) + [True]
    # the wire sink writes each tensor right after the previous one: no gaps, nothing else
    offsets = [t.offset for t in tensors]
    assert offsets == [sum(t.nbytes for t in tensors[:k]) for k in range(len(tensors))]
    assert sum(t.nbytes for t in tensors) == len(debug)


def _reference_output() -> np.ndarray:
    return np.fromfile(TIER1 / "tier1_arm.output.f32", dtype=np.float32).reshape(1, 16, 32, 32)


def test_the_device_s_program_output_is_the_exporter_s_reference(
        blocks: list[Block], debug: bytes) -> None:
    output: DebugTensor = blocks[1].tensors[-1]
    last: DebugTensor = blocks[1].tensors[-2]
    assert output.sizes == (1, 16, 32, 32) and output.dtype == np.float32
    assert output.strides == (16384, 1, 512, 16)  # channels_last, as the program plans it
    np.testing.assert_array_equal(output.values(debug), _reference_output())
    np.testing.assert_array_equal(last.values(debug), output.values(debug))

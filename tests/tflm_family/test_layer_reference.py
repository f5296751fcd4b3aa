"""The per-layer host reference: every layer of the MLPerf Tiny models through tflite-micro."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import numpy as np
import pytest
from hpx_tflm_family import host_outputs
from hpx_tflm_family.arena import ArenaPlan
from hpx_tflm_family.check import check_source, check_staging, staging_size
from hpx_tflm_family.inputs import InputSpec, input_bytes
from hpx_tflm_family.layer_reference import layer_io, layer_reference
from tflite_edit import with_custom_op

from hpx_core.boards import get_board
from hpx_core.errors import ConfigError
from hpx_core.reading import load_model

MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"


@pytest.mark.parametrize(("name", "layers"), [("kws_ref_model", 13), ("vww_96_int8", 31),
                                              ("pretrainedResnet_quant", 16), ("ad01_int8", 10)])
def test_every_layer_is_computed_and_the_last_is_the_model_output(name: str, layers: int) -> None:
    path = MODELS / f"{name}.tflite"
    model, data = load_model(path), path.read_bytes()
    inputs = input_bytes(InputSpec.parse("random"), model)
    reference = layer_reference(data, inputs, model)
    assert reference.stopped is None and len(reference.layers) == layers
    assert [layer.index for layer in reference.layers] == list(range(layers))
    assert reference.layers[-1].outputs[0].data == host_outputs(data, inputs, model)[0]
    first = reference.layers[0]
    assert first.inputs[0].data == inputs[0]  # the model input is layer 0's only activation
    assert first.outputs[0].scale is not None and first.outputs[0].dtype == "int8"
    feeds = {t.tensor for t in reference.layers[1].inputs}
    assert feeds == {t.tensor for t in first.outputs}  # the graph says who feeds whom


def test_an_op_the_host_cannot_run_stops_the_reference_before_it(tmp_path: Path) -> None:
    edited = tmp_path / "kws_custom.tflite"
    edited.write_bytes(with_custom_op(KWS, 5))
    model = load_model(KWS)
    inputs = input_bytes(InputSpec.parse("random"), model)
    reference = layer_reference(edited.read_bytes(), inputs, model)
    assert len(reference.layers) == 5
    assert reference.stopped is not None and "\n" not in reference.stopped
    assert reference.stopped.startswith("the host interpreter cannot run layer 5 (CUSTOM)")
    full = layer_reference(KWS.read_bytes(), inputs, model)
    assert reference.layers == full.layers[:5]  # the layers before it are still checked


def test_check_tables_carry_the_host_crcs_and_the_largest_staging() -> None:
    data = KWS.read_bytes()
    model = load_model(KWS)
    io = layer_io(data)
    reference = layer_reference(data, input_bytes(InputSpec.parse("zeros"), model), model)
    staging = staging_size(io)
    assert staging == max(sum(t.size for t in layer.inputs) for layer in io) == 8000
    source = check_source(io, reference, staging, fault=3)
    crcs = re.search(r"hpx_tflm_check_crc\[\] = \{([^}]*)\}", source)
    assert crcs is not None
    expected = [zlib.crc32(t.data) for layer in reference.layers for t in layer.outputs]
    assert [int(v.rstrip("u")) for v in crcs.group(1).split(", ")] == expected
    assert "#define HPX_TFLM_CHECK_FAULT_LAYER 3" in source
    assert np.frombuffer(reference.layers[10].outputs[0].data, np.int8).size == 64


def test_a_board_without_ram_for_the_staging_is_refused_with_the_bytes_needed() -> None:
    board = get_board("qemu-m4")
    room = sum(r.length for r in board.regions_for("data"))
    with pytest.raises(ConfigError, match=r"needs 36864 bytes of RAM .* has 1000 bytes"):
        check_staging(board, ArenaPlan(room - 1000, "config"), 36864)
    assert check_staging(board, ArenaPlan(room - 40000, "config"), 36864).size == 36864

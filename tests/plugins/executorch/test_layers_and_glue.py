"""Layer identities, the generated slot table and the reference input of the glue."""

from __future__ import annotations

import struct

from hpx_executorch.firmware import glue_data, input_bytes, reference_codes
from hpx_executorch.layers import layer_table
from hpx_executorch.verify import findings, qualified

from hpx_core.models import TensorInfo
from hpx_core.reading import load_model

from .conftest import TIER1


def test_layer_names_follow_the_instruction_ids() -> None:
    table = layer_table(load_model(TIER1 / "tier1_arm.pte"))
    assert len(table.layers) == 12
    assert table.layers[2].name == "cortex_m::quantized_conv2d:c0i2"
    assert table.slots() == list(range(12))
    assert table.chain_first() == [0, 12]


def test_reference_codes_match_the_fixture_formula() -> None:
    codes = reference_codes((1, 4, 2, 2))
    # channel offsets spread over [-64, 64): -64, -32, 0, 32
    noise = [(i * 1103515245 + 12345) // 65536 % 128 - 64 for i in range(16)]
    assert codes == [n + (i // 4) * 32 - 64 for i, n in enumerate(noise)]


def test_channels_last_input_is_written_in_memory_order() -> None:
    shape = (1, 2, 1, 3)
    nchw = reference_codes(shape)
    tensor = TensorInfo("x", "int8", shape, 6, dim_order=(0, 2, 3, 1))
    data = struct.unpack("<6b", input_bytes(tensor))
    # NHWC: for each w, channel 0 then channel 1
    assert list(data) == [nchw[0], nchw[3], nchw[1], nchw[4], nchw[2], nchw[5]]
    as_float = TensorInfo("x", "float32", shape, 24, dim_order=(0, 1, 2, 3))
    assert struct.unpack("<6f", input_bytes(as_float)) == tuple(c / 128 for c in nchw)


def test_glue_data_embeds_the_program_and_tables() -> None:
    model = load_model(TIER1 / "tier1mean_ns.pte")
    text = glue_data(model.path.read_bytes(), [b"\x01\x02"], layer_table(model))
    assert f"hpx_et_program_size = {model.size_bytes}u" in text
    assert '"cortex_m_ns::quantized_mean:c0i1"' in text
    assert "hpx_et_slot[] = {0, 1, 2}" in text


def test_qualified_reads_nested_mangled_names() -> None:
    mangled = ("_ZN11cortex_m_ns6native23quantized_hardswish_out"
               "ERN10executorch7runtime20KernelRuntimeContextE")
    assert qualified(mangled) == "cortex_m_ns::native::quantized_hardswish_out"
    assert qualified("arm_convolve_weight_sum") == "arm_convolve_weight_sum"


def test_findings_tell_the_providers_apart() -> None:
    ns_names = ["arm_convolve_weight_sum", "arm_convolve_s8_get_weights_sum_size",
                "_ZN11cortex_m_ns6native18quantized_mean_outEv"]
    assert all(f.passed for f in findings(ns_names, "ns", ns_ops=True))
    assert not any(f.passed for f in findings(ns_names, "arm"))
    arm_names = ["arm_convolve_s8", "_ZN5torch8executor6native14leaky_relu_outEv"]
    assert not any(f.passed for f in findings(arm_names, "ns", ns_ops=True))

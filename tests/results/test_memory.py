"""The memory pass judged from a real capture: the qemu-m55 selftest, whose stack layer has a
known depth (hpx_core/selftest/layers.py)."""

from __future__ import annotations

from pathlib import Path

from hpx_core.results.memory import memory_use
from hpx_core.selftest.layers import STACK_LAYER_DEPTH
from hpx_core.wire import encode_record, parse_capture

STREAM = (Path(__file__).resolve().parents[1] / "fixtures" / "wire" /
          "selftest-qemu-m55.bin").read_bytes()


def test_the_stack_layer_is_measured_at_its_known_depth() -> None:
    use = memory_use(parse_capture(STREAM))
    assert use is not None
    by_name = {layer.name: layer for layer in use.layers}
    assert by_name["stack"].stack == use.stack.base + STACK_LAYER_DEPTH
    assert not by_name["stack"].stack_at_most
    assert use.stack.used == by_name["stack"].stack  # the deepest layer is the whole's depth
    assert use.stack.engine == STACK_LAYER_DEPTH and not use.stack.at_limit


def test_layers_shallower_than_the_hooks_read_as_an_upper_bound() -> None:
    use = memory_use(parse_capture(STREAM))
    assert use is not None
    shallow = [layer for layer in use.layers if layer.name != "stack"]
    assert shallow and all(layer.stack_at_most for layer in shallow)
    deep = use.stack.base + STACK_LAYER_DEPTH
    assert all(use.stack.base < layer.stack < deep for layer in shallow)


def test_the_section_says_what_the_pass_found() -> None:
    use = memory_use(parse_capture(STREAM))
    assert use is not None
    section = use.to_json()
    assert section["stack"]["size"] == 65536 and section["buffers"] == []
    assert [layer["name"] for layer in section["layers"]][:2] == ["tiny", "short"]
    assert section["heap"]["linked"] is (use.heap_in_inference is not None)


def test_a_firmware_without_the_pass_has_no_memory_result() -> None:
    kept = [r for r in parse_capture(STREAM).records if not r.type.startswith("MEM")]
    stream = b"".join(encode_record(seq, r.type, r.fields) for seq, r in enumerate(kept))
    assert memory_use(parse_capture(stream)) is None

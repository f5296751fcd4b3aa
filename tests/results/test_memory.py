"""The memory pass judged from a real capture: the qemu-m55 selftest, whose stack layer has a
known depth (hpx_core/selftest/layers.py)."""

from __future__ import annotations

from pathlib import Path

from hpx_core.contract import MemoryFigures
from hpx_core.results.memory import memory_use
from hpx_core.selftest.layers import STACK_LAYER_DEPTH
from hpx_core.wire import encode_record, parse_capture

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"
STREAM = (WIRE / "selftest-qemu-m55.bin").read_bytes()
KWS = (WIRE / "memory-kws-qemu-m55.bin").read_bytes()


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


def test_an_engines_own_figures_join_and_the_device_wins_where_both_name_one() -> None:
    capture = parse_capture(KWS)
    known = MemoryFigures({"arena.planned": 1, "scratch.planned": 4096}, {0: {"scratch": 1024}})
    use = memory_use(capture, known)
    assert use is not None
    sent = {r.text("name"): r.number("bytes") for r in capture.of("MEMFACT")}
    assert use.facts["arena.planned"] == sent["arena.planned"] != 1
    assert use.facts["scratch.planned"] == 4096
    assert use.layers[0].uses["scratch"] == 1024 and "arena" in use.layers[0].uses
    assert "scratch" in {b.name for b in use.buffers}


def test_the_tflm_arena_is_its_persistent_part_plus_the_heads_high_water() -> None:
    use = memory_use(parse_capture(KWS))
    assert use is not None
    facts = use.facts
    assert facts["arena.planned"] == facts["arena.persistent"] + facts["arena.head"]
    per_layer = [layer.uses["arena"] for layer in use.layers]
    assert per_layer == sorted(per_layer)  # a high-water mark never falls
    assert facts["arena.persistent"] < per_layer[0] <= per_layer[-1] == facts["arena"]
    (arena,) = use.buffers
    assert (arena.configured, arena.planned, arena.used) == (
        facts["arena.size"], facts["arena.planned"], facts["arena"])
    assert use.heap == 0 and use.heap_in_inference == 0  # malloc is linked, never called

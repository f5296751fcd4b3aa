"""The instruction profile of the selftest firmware: loops whose instructions follow from their
code, profiled by a separate QEMU pass with hpx's plugin, on both emulated boards."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hpx_insight.classes import CLASSES
from hpx_insight.document import FILE_NAME, profile_document, shape_problem
from hpx_insight.profile import InstructionProfile

from hpx_core.errors import ResultsError
from hpx_core.results import verify_bundle
from hpx_core.results.bundle import dump_json, write_folder
from hpx_core.selftest.layers import calibration_layers
from hpx_core.selftest.run import SelftestReport

pytestmark = pytest.mark.emulated


def test_every_layer_equals_the_timed_systick_counts(selftest_run: SelftestReport,
                                                      selftest_profile: InstructionProfile
                                                      ) -> None:
    timed = {layer.index: layer.counts for layer in selftest_run.runs[0].measurement.layers}
    profiled = {layer.index: layer.work.per_pass for layer in selftest_profile.layers}
    assert profiled == timed
    expected = [layer.expected for layer in calibration_layers(selftest_profile.board)]
    assert [layer.work.per_pass[0] for layer in selftest_profile.layers] == expected
    whole = selftest_run.runs[0].measurement.whole
    assert selftest_profile.whole.per_pass[-len(whole):] == whole
    assert selftest_profile.counter_agrees()


def test_classes_add_up_and_name_what_the_loops_execute(selftest_profile: InstructionProfile
                                                        ) -> None:
    by_name = {layer.name: layer.work for layer in selftest_profile.layers}
    for work in by_name.values():
        assert sum(work.classes().values()) == sum(work.per_pass)
    passes = by_name["memory"].passes
    memory = by_name["memory"].classes()
    assert memory["load"] == memory["store"] == 50_000 * passes  # ldr/str on the stack
    # each loop's bne is taken every iteration but the last
    assert memory["branch_taken"] == (50_000 - 1) * passes
    assert by_name["float"].classes()["float"] == 100_000 * passes
    if "mve" in selftest_profile.board.features:
        assert by_name["vector"].classes()["vector"] == 100_000 * passes
    region = next(r.name for r in selftest_profile.board.memory if r.serves("data"))
    use = dict(zip(selftest_profile.region_names,
                   by_name["memory"].memory(len(selftest_profile.region_names) - 1),
                   strict=True))[region]
    assert use == {"loads": 50_000 * passes, "stores": 50_000 * passes,
                   "bytes_read": 4 * 50_000 * passes, "bytes_written": 4 * 50_000 * passes}


def test_the_document_has_its_shape_and_names_source_lines(selftest_profile: InstructionProfile
                                                           ) -> None:
    document = profile_document(selftest_profile)
    assert shape_problem(document) is None
    assert document["counter_agrees"] is True
    assert list(document["classes"]) == list(CLASSES)
    nops = next(layer for layer in document["layers"] if layer["name"] == "nops")
    top = nops["blocks"][0]
    assert top["name"] == "hpx_engine_invoke"
    # named from the build folder, plainly (hpx_core.firmware.debug_paths)
    assert top["location"].split(":")[0] == "../project/engine/selftest_layers.S", top
    assert top["executions"] == 25_000  # per pass
    assert top["instructions"] == 25_000 * 6  # four nops, subs, bne
    broken = dict(document, layers=[dict(nops, classes={"load": "many"})])
    assert shape_problem(broken) is not None


def test_the_harness_own_instructions_are_the_calibration_pair(
        selftest_profile: InstructionProfile, selftest_run: SelftestReport) -> None:
    assert selftest_profile.calibration_pair == selftest_run.calibration_pair
    tiny = selftest_profile.layers[0].work
    pair = Counter(e.insn.function for e in tiny.pair)
    assert set(pair) <= {"hpx_layer_begin", "hpx_layer_end", "hpx_calibration_pair"}


def test_a_bundle_holding_the_profile_verifies_against_its_schema(
        selftest_profile: InstructionProfile, selftest_run: SelftestReport,
        tmp_path: Path) -> None:
    source = selftest_run.runs[0].bundle
    files = {p.name: p.read_bytes() for p in source.iterdir() if p.name != "manifest.json"}
    document = profile_document(selftest_profile)
    good = write_folder(tmp_path, "good", files | {FILE_NAME: dump_json(document)}, "complete")
    assert verify_bundle(good).status == "complete"
    broken = write_folder(tmp_path, "broken", files | {FILE_NAME: dump_json(
        dict(document, passes="three"))}, "complete")
    with pytest.raises(ResultsError, match=r"instruction_profile\.json: passes"):
        verify_bundle(broken)

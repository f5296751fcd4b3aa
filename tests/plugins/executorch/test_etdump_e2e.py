"""The ETDump from the device, end to end on qemu-m55 (pinned sources, toolchain, QEMU).

tier1_arm.pte with ``--check-layers`` writes ExecuTorch's ETDump and every instruction's output
into its bundle, and every count of the run is the one of the run without it.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from etdump_reader import read_etdump
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.engine import executorch_sources
from hpx_executorch.etdump import LAYER_CHECK_NOTE
from profiles import BUILD_ONLY, extra_of, profile_run

from hpx_core.boards import get_board
from hpx_core.pipeline import ProfileOutcome
from hpx_core.wire import parse_capture

from .conftest import CATALOG, TIER1
from .test_profile_e2e import MANIFEST, WORK, _ids, arm_profile

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs the toolchain"),
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs QEMU"),
]


@functools.cache
def checked() -> ProfileOutcome:
    return profile_run(TIER1 / "tier1_arm.pte", "executorch", "qemu-m55", WORK / "etdump-check",
                       backend="arm", check_layers="first")


@functools.cache
def events_only() -> ProfileOutcome:
    return profile_run(TIER1 / "tier1_arm.pte", "executorch", "qemu-m55", WORK / "etdump-events",
                       backend="arm", etdump=True)


def _bundle(outcome: ProfileOutcome) -> Path:
    assert outcome.bundle is not None, "the run wrote no bundle"
    return outcome.bundle


def _raw_counts(outcome: ProfileOutcome) -> dict[str, list[int]]:
    """Every counted record of the run, as the device sent it."""
    capture = parse_capture((_bundle(outcome) / "capture.bin").read_bytes())
    return {"whole": [r.number("raw") for r in capture.of("WHOLE")],
            "layers": [r.number("raw") for r in capture.of("LAYER")]}


def _app_code(outcome: ProfileOutcome) -> dict[str, str]:
    """The disassembly of every object of the app (harness, counter, board support, runner)."""
    assert outcome.build is not None
    objects = sorted((outcome.build.elf.parent / "CMakeFiles" / "hpx_app.dir").rglob("*.obj"))
    return {o.name: subprocess.run(["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", str(o)],
                                   capture_output=True, text=True, check=True).stdout
            .split("\n", 3)[-1] for o in objects}


@pytest.mark.parametrize("run", [checked, events_only], ids=["check-layers", "etdump"])
def test_the_etdump_pass_leaves_the_counted_code_and_every_count_as_they_were(run: Any) -> None:
    """The app is the same code with and without the pass (it is switched by a constant), so
    every raw count of the counted passes is the same."""
    plain, with_etdump = arm_profile("tier1"), run()
    assert _app_code(with_etdump) == _app_code(plain)
    assert _raw_counts(with_etdump) == _raw_counts(plain)
    m, p = with_etdump.measurement, plain.measurement
    assert m is not None and p is not None and m.whole == p.whole
    assert [layer.counts for layer in m.layers] == [layer.counts for layer in p.layers]


def test_the_bundle_carries_the_etdump_and_every_instruction_s_output() -> None:
    bundle = _bundle(checked())
    etdp, debug = (bundle / "etdump.etdp").read_bytes(), (bundle / "etdump.debug.bin").read_bytes()
    blocks = read_etdump(etdp)
    assert [b.name for b in blocks] == ["Default", "Execute"]
    calls = [f"c{e.chain}i{e.instruction}" for e in blocks[1].profile
             if e.name == "OPERATOR_CALL"]
    assert calls == _ids("tier1", "arm")
    tensors = blocks[1].tensors
    assert [f"c{t.chain}i{t.instruction}" for t in tensors[:-1]] == calls and tensors[-1].output
    assert sum(t.nbytes for t in tensors) == len(debug)
    reference = np.fromfile(TIER1 / MANIFEST["models"]["tier1"]["programs"]["arm"][
        "reference_output"], dtype=np.float32).reshape(tensors[-1].sizes)
    np.testing.assert_array_equal(tensors[-1].values(debug), reference)
    extra = extra_of(checked())["etdump"]
    assert (extra["bytes"], extra["debug_bytes"]) == (len(etdp), len(debug))
    files = json.loads((bundle / "manifest.json").read_text())["files"]
    assert {"etdump.etdp", "etdump.debug.bin", "input0.npy"} <= set(files)
    assert extra["inputs"] == ["input0.npy"]


def test_the_layer_check_says_inspector_compares_the_layers() -> None:
    summary = json.loads((_bundle(checked()) / "summary.json").read_text())
    check = summary["layer_check"]
    assert check["note"] == LAYER_CHECK_NOTE and check["layers"] == []


def test_an_etdump_without_the_check_has_events_and_no_tensors() -> None:
    bundle = _bundle(events_only())
    assert not (bundle / "etdump.debug.bin").exists()
    blocks = read_etdump((bundle / "etdump.etdp").read_bytes())
    calls = [e for e in blocks[1].profile if e.name == "OPERATOR_CALL"]
    assert [f"c{e.chain}i{e.instruction}" for e in calls] == _ids("tier1", "arm")
    assert blocks[1].tensors == ()
    assert "layer_check" not in json.loads((bundle / "summary.json").read_text())


def test_the_etdump_times_kernels_in_hpx_s_units() -> None:
    """Timestamps are the counter in its units (instructions here), so each kernel call of the
    events-only ETDump lasts what hpx counted for its layer, less hpx's own instrumentation."""
    outcome = events_only()
    blocks = read_etdump((_bundle(outcome) / "etdump.etdp").read_bytes())
    kernels = [e for e in blocks[1].profile if e.name.startswith("native_call_")]
    assert outcome.measurement is not None
    counted = [layer.median for layer in outcome.measurement.layers]
    assert len(kernels) == len(counted)
    for kernel, count in zip(kernels, counted, strict=True):
        assert abs((kernel.end - kernel.start) - count) < count // 100, kernel
    assert extra_of(outcome)["etdump"]["time_base"].startswith("instructions ")


def test_on_apollo_the_etdump_buffer_is_placed_in_shared_sram() -> None:
    built = profile_run(TIER1 / "tier1_ns.pte", "executorch", "apollo510_evb",
                        WORK / "etdump-ns", backend="ns", until=BUILD_ONLY, check_layers="first")
    assert built.placement is not None
    (placed,) = [b for b in built.placement.buffers if b.buffer.symbol == "hpx_et_etdump_buffer"]
    assert placed.region == "SHARED_SRAM" and placed.size >= placed.buffer.size


def test_the_runtime_build_leaves_the_flatcc_checkout_as_pinned() -> None:
    checked()  # the runtime with etdump and flatccrt is built (or was, from the cache)
    sources = executorch_sources(CATALOG, "arm", get_board("qemu-m55"), ExecutorchConfig())
    flatcc = sources.path_of("executorch") / "third-party" / "flatcc"
    status = subprocess.run(["git", "-C", str(flatcc), "status", "--porcelain", "--ignored"],
                            capture_output=True, text=True, check=True).stdout
    assert status == "" and not (flatcc / "bin").exists()

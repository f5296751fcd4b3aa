"""``executorch`` end to end: arm on the emulated Cortex-M55, ns built for the Apollo510 EVB.

Needs the pinned sources (mirrors or network), the Arm toolchain and, for the arm runs, QEMU.
The ns provider links ns-cmsis-nn's Ambiq-licensed kernels: it is built and checked here, never
run. Each runtime is built once into the cache and shared by the tests that need it.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hpx_executorch import plugin
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.engine import (
    Prepared,
    absent_submodules,
    executorch_glue,
    executorch_runtime,
    executorch_sources,
    explain_failure,
    prepare,
)
from hpx_executorch.firmware import ExecutorchFacts
from hpx_executorch.layers import layer_table
from hpx_executorch.settings import resolve
from hpx_executorch.verify import verify
from profiles import BUILD_ONLY, profile_run

from hpx_core.boards import Board, get_board
from hpx_core.contract import EngineSelection, ErrorRequest
from hpx_core.errors import ModelError, RunError
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.models import ModelInfo
from hpx_core.pipeline import ProfileOutcome
from hpx_core.reading import load_model
from hpx_core.results import BundleInputs
from hpx_core.run import run_on_qemu
from hpx_core.run.record import FirmwareReportedError, Recorder, judge
from hpx_core.runners import runner_for
from hpx_core.wire import parse_capture

from .conftest import CATALOG, STOCK_151, TIER1

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs the toolchain"),
]
needs_qemu = pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs QEMU")
MANIFEST = json.loads((TIER1 / "tier1_manifest.json").read_text(encoding="utf-8"))
WORK = Path(tempfile.mkdtemp(prefix="hpx-executorch-e2e-"))
atexit.register(shutil.rmtree, WORK, True)


@functools.cache
def arm_profile(model: str) -> ProfileOutcome:
    return profile_run(TIER1 / f"{model}_arm.pte", "executorch", "qemu-m55", WORK / f"{model}-arm",
                       backend="arm")


@functools.cache
def ns_build(model: str) -> ProfileOutcome:
    return profile_run(TIER1 / f"{model}_ns.pte", "executorch", "apollo510_evb",
                       WORK / f"{model}-ns", backend="ns", until=BUILD_ONLY)


def arm_build(work: str, **config: Any) -> ProfileOutcome:
    return profile_run(TIER1 / "tier1_arm.pte", "executorch", "qemu-m55", WORK / work,
                       backend="arm", until=BUILD_ONLY, **config)


def elf_of(outcome: ProfileOutcome) -> Path:
    assert outcome.build is not None
    return outcome.build.elf


def _ids(model: str, provider: str) -> list[str]:
    return [i["id"] for i in MANIFEST["models"][model]["programs"][provider]["instructions"]
            if i["kind"] == "KernelCall"]


@needs_qemu
@pytest.mark.parametrize("model", ["tier1", "tier1mean"])
def test_arm_on_qemu_counts_every_instruction_of_the_manifest(model: str) -> None:
    profile = arm_profile(model)
    m = profile.measurement
    assert m is not None and m.validity == "valid", m and m.issues
    idents = [layer.name.rsplit(":", 1)[1] for layer in m.layers]
    assert idents == _ids(model, "arm")
    ops = [layer.op for layer in m.layers]
    manifest_ops = [i["operator"].rsplit(".", 1)[0] for i in
                    MANIFEST["models"][model]["programs"]["arm"]["instructions"]]
    assert ops == manifest_ops
    assert all(layer.calls == 1 and min(layer.counts) > 0 for layer in m.layers)
    # Emulated counts are exact instructions: every iteration gives the same number.
    assert all(layer.spread == 0 for layer in m.layers), [x.counts for x in m.layers]
    assert len(set(m.whole)) == 1, m.whole
    layer_sum = sum(layer.counts[0] for layer in m.layers)
    assert layer_sum < m.whole[0] < layer_sum + 5_000  # execute() outside the kernels: small
    assert profile.findings and all(f.passed for f in profile.findings), profile.findings
    assert profile.bundle is not None and (profile.bundle / "summary.json").is_file()
    reference = MANIFEST["models"][model]["programs"]["arm"]["reference_output"]
    verdict = profile.record.outputs if profile.record else None
    assert verdict is not None and Path(reference).name in verdict.reference
    assert verdict.exact and verdict.tensors[0].elements > 0, verdict  # bit-exact on device


@needs_qemu
def test_second_arm_model_with_the_same_kernels_reuses_the_runtime() -> None:
    first, again = arm_profile("tier1").contribution, arm_build("tier1-arm-again").contribution
    assert first is not None and again is not None
    assert not again.libraries[0].built and again.libraries[0].key == first.libraries[0].key


@needs_qemu
def test_compare_through_the_export_manifest_lists_every_instruction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The arm program against itself: every kernel call paired, the Tier-1 region empty.

    (An ns bundle, the interesting candidate, comes only from an Apollo board.)
    """
    from hpx_core.cli import main

    bundle = arm_profile("tier1").bundle
    code = main(["compare", "--manifest", str(TIER1 / "tier1_manifest.json"), "--model",
                 "tier1", str(bundle), str(bundle)])
    out = capsys.readouterr().out
    assert code == 0 and "layers in program order" in out and "Tier-1 region" in out
    assert all(f":{ident}" in out for ident in _ids("tier1", "arm"))


@pytest.mark.parametrize("model", ["tier1", "tier1mean"])
def test_ns_builds_for_apollo_and_passes_its_kernel_checks(model: str) -> None:
    built = ns_build(model)
    assert built.board is not None and built.board.cpu_vendor == "Ambiq"
    assert built.contribution is not None
    facts = built.contribution.facts
    assert isinstance(facts, ExecutorchFacts) and facts.settings.ns_ops
    assert built.findings and all(f.passed for f in built.findings), built.findings
    assert built.build is not None and built.build.sizes.text > 0


def test_each_provider_check_fails_on_the_other_providers_elf() -> None:
    arm_elf, ns_elf = elf_of(arm_build("tier1-arm-x")), elf_of(ns_build("tier1"))
    on_ns = verify(ns_elf, "arm", expect_portable=True)
    assert not all(f.passed for f in on_ns)
    assert not next(f for f in on_ns if "weight-sum" in f.check).passed
    on_arm = verify(arm_elf, "ns", ns_ops=True)
    assert not any(f.passed for f in on_arm)


def test_a_151_program_is_refused_before_building() -> None:
    board = get_board("qemu-m55")
    sources = executorch_sources(CATALOG, "arm", board, ExecutorchConfig())
    with pytest.raises(ModelError) as caught:
        prepare(load_model(STOCK_151 / "tier1.pte"), ExecutorchConfig(), "arm", board, sources)
    assert "ExecuTorch 1.3.0" in caught.value.message
    assert "cortex_m::quantized_conv2d.out carries 15 arguments" in caught.value.message


def _run_explained_by_the_hook(board: Board, elf: Path, model: ModelInfo,
                               results: Path) -> None:
    """Run ``elf``; an error code the glue reports is put in the engine's words, as the
    pipeline's run stage does (hpx_core.pipeline.running)."""
    runner = runner_for(board, timeout=120)
    recorder = Recorder(results, BundleInputs(status="failed", board=board.name,
                                              engine="executorch",
                                              counter_units=board.counter_units()))
    run, recorder = recorder.execute(runner, elf)
    try:
        judge(board, elf, run, runner.timeout)
    except FirmwareReportedError as reported:
        selection = EngineSelection("executorch", "arm", ExecutorchConfig())
        answer = plugin.hpx_explain_error(ErrorRequest(selection, model, reported.code,
                                                       reported.stage, reported.capture))
        assert answer is not None
        recorder.fail(RunError(answer.message, answer.hint))


@needs_qemu
def test_ns_program_on_an_arm_build_fails_at_method_load_with_a_named_operator() -> None:
    """Bypass the pre-build check to show what the runtime itself says, read by hpx through
    the engine's hpx_explain_error. The arm build contains no Ambiq code, so it may run on the
    emulated board."""
    board, config = get_board("qemu-m55"), ExecutorchConfig()
    sources = executorch_sources(CATALOG, "arm", board, config)
    prepared = prepare(load_model(TIER1 / "tier1_arm.pte"), config, "arm", board, sources)
    runtime = executorch_runtime(sources, prepared.settings, board)
    ns_program = load_model(TIER1 / "tier1_ns.pte")
    crossed = Prepared(prepared.settings, layer_table(ns_program), prepared.runtime_version)
    project = render_project(WORK / "ns-on-arm", board,
                             executorch_glue(ns_program, crossed, runtime, board),
                             HarnessSettings(engine="executorch", iterations=1, warmup=0))
    result = build_project(project, get_toolchain("arm-none-eabi-gcc"))
    with pytest.raises(RunError) as caught:
        _run_explained_by_the_hook(board, result.elf, ns_program, WORK / "ns-on-arm-results")
    assert "Method::load() failed: operator missing: cortex_m_ns::" in caught.value.message
    assert "enable ns_ops with backend ns" in caught.value.hint
    assert "failed bundle:" in caught.value.hint


@needs_qemu
def test_the_hooks_take_tier1_from_sources_to_named_layers() -> None:
    """The typed requests alone carry everything: sources, firmware, symbols, extras."""
    from hpx_core.contract import FirmwareRequest, ResultsRequest, SourcesRequest, SymbolsRequest
    from hpx_core.firmware import symbol_inventory
    from hpx_core.results import measure

    board, model = get_board("qemu-m55"), load_model(TIER1 / "tier1_arm.pte")
    engine = EngineSelection("executorch", "arm", ExecutorchConfig())
    sources = plugin.hpx_materialize_sources(SourcesRequest(engine, board, CATALOG))
    contribution = plugin.hpx_generate_firmware(FirmwareRequest(
        engine=engine, board=board, model=model, sources=sources,
        toolchain="arm-none-eabi-gcc", jobs=2, scratch=WORK / "hooks-scratch",
        log=WORK / "hooks-run.log"))
    project = render_project(WORK / "hooks", board, contribution,
                             HarnessSettings(engine="executorch", iterations=2, warmup=1))
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"))
    found = plugin.hpx_verify_symbols(SymbolsRequest(
        engine="executorch", backend="arm", elf=built.elf,
        symbols=frozenset(symbol_inventory(built.elf).names()), model=model,
        facts=contribution.facts))
    assert found and all(f.passed for f in found)
    capture = parse_capture(run_on_qemu(board, built.elf, timeout=600).stream)
    layers = measure(capture, board).layers
    assert [layer.name.rsplit(":", 1)[1] for layer in layers] == _ids("tier1", "arm")
    assert layers[2].name == "cortex_m::quantized_conv2d:c0i2"
    assert all(layer.median > 0 for layer in layers)
    extras = plugin.hpx_result_extras(ResultsRequest(engine, board, model, sources, capture,
                                                     contribution.facts))
    device = capture.outputs()[0]
    assert [r.data for r in extras.reference_outputs] == [device]


def test_verify_kernels_command_on_both_providers_elfs() -> None:
    from hpx_core.cli import main

    arm_elf, ns_elf = str(elf_of(arm_build("tier1-arm-x"))), str(elf_of(ns_build("tier1")))
    check = ["verify-kernels", "--engine", "executorch", "--backend"]
    assert main([*check, "arm", "--expect", "portable", arm_elf]) == 0
    assert main([*check, "ns", "--expect", "ns_ops", ns_elf]) == 0
    assert main([*check, "ns", "--expect", "ns_ops", arm_elf]) == 1
    assert main([*check, "arm", ns_elf]) == 1


@needs_qemu
def test_hpx_profile_runs_the_shipped_arm_config(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from hpx_core.cli import main

    monkeypatch.chdir(tmp_path)
    config = TIER1.parents[2] / "configs" / "executorch" / "tier1mean_arm.yaml"
    assert main(["profile", "-c", str(config), "--output-dir", str(tmp_path / "out")]) == 0
    (summary,) = (tmp_path / "out").glob("*/summary.json")
    written = json.loads(summary.read_text(encoding="utf-8"))
    extra, outputs = written["extra"], written["outputs"]
    assert outputs["exact"] and outputs["tensors"][0]["elements"] == 16
    assert all(check["passed"] for check in extra["kernel_checks"])
    sources = executorch_sources(CATALOG, "arm", get_board("qemu-m55"), ExecutorchConfig())
    recorded = extra.get("absent_submodules", {}).get("paths", [])
    assert recorded == absent_submodules(sources)  # the mirror's gap, said in the bundle


def test_hpx_profile_builds_the_ns_config_and_stops_without_a_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hpx_core.cli import main

    monkeypatch.chdir(tmp_path)
    config = TIER1.parents[2] / "configs" / "executorch" / "tier1_ns.yaml"
    assert main(["profile", "-c", str(config)]) == 3
    assert "stopped after the build" in capsys.readouterr().err


def test_buffers_land_where_the_config_places_them_on_apollo() -> None:
    from hpx_core.firmware import symbol_inventory

    board = get_board("apollo510_evb")
    regions = {m.name: range(m.origin, m.origin + m.length) for m in board.memory}

    def address(built: ProfileOutcome, buffer: str) -> int:
        symbols = symbol_inventory(elf_of(built)).symbols
        return next(s.address for s in symbols if s.name == buffer)

    default = ns_build("tier1mean")
    assert address(default, "hpx_et_planned_arena") in regions["MCU_TCM"]
    placed = profile_run(TIER1 / "tier1mean_ns.pte", "executorch", "apollo510_evb",
                         WORK / "placed", backend="ns", until=BUILD_ONLY,
                         planned_arena_location="sram", io_location="sram")
    assert address(placed, "hpx_et_planned_arena") in regions["SHARED_SRAM"]
    assert address(placed, "hpx_et_output") in regions["SHARED_SRAM"]
    assert address(placed, "hpx_et_method_arena") in regions["MCU_TCM"]
    assert placed.contribution is not None
    assert not placed.contribution.libraries[0].built  # the runtime is shared


def test_cmsis_nn_ref_moves_only_the_provider_and_stamps_the_run() -> None:
    parent = "91f84c801b1ae83c1e673e7df4a310d87eaf1937"  # the pinned CMSIS-NN commit's parent
    board = get_board("qemu-m55")
    pinned = executorch_sources(CATALOG, "arm", board, ExecutorchConfig())
    moved = executorch_sources(CATALOG, "arm", board, ExecutorchConfig(cmsis_nn_ref=parent))
    assert moved.provenance == "development-overrides"
    provider = next(r for r in moved.repos if r.name == "CMSIS-NN")
    assert provider.commit == parent and "provider-refs" in provider.path.parts
    shared = next(r for r in pinned.repos if r.name == "CMSIS-NN")
    assert shared.commit != parent  # the shared checkout stays at the pin
    assert moved.path_of("nsx-executorch") == pinned.path_of("nsx-executorch")


@needs_qemu
def test_the_refused_channels_last_mean_really_fails_inside_execute() -> None:
    """Bypass check_runnable once to confirm, on the runtime itself, what the check claims."""
    board = get_board("qemu-m55")
    model = load_model(TIER1 / "tier1mean_cl_arm.pte")
    settings = resolve(ExecutorchConfig(), "arm", model)
    runtime = executorch_runtime(executorch_sources(CATALOG, "arm", board, ExecutorchConfig()),
                                 settings, board)
    glue = executorch_glue(model, Prepared(settings, layer_table(model), "1.3.0"), runtime,
                           board)
    project = render_project(WORK / "mean-cl", board, glue,
                             HarnessSettings(engine="executorch", iterations=1, warmup=0))
    elf = build_project(project, get_toolchain("arm-none-eabi-gcc")).elf
    capture = parse_capture(run_on_qemu(board, elf, timeout=120).stream)
    failure = explain_failure(capture, model)
    assert failure is not None
    assert failure.message.startswith("ExecuTorch failed at execute: InvalidArgument")


@needs_qemu
def test_the_refused_151_program_really_fails_inside_execute() -> None:
    """Bypass check_release once: the 1.5.1 program loads, then execute() says InvalidProgram.

    portable_ops names the tier1 arm runtime's set, so the cached runtime is reused.
    """
    board = get_board("qemu-m55")
    model = load_model(STOCK_151 / "tier1.pte")
    config = ExecutorchConfig(portable_ops=("aten::clamp.out", "aten::leaky_relu.out",
                                            "aten::sub.out"))
    settings = resolve(config, "arm", model)
    runtime = executorch_runtime(executorch_sources(CATALOG, "arm", board, config), settings,
                                 board)
    glue = executorch_glue(model, Prepared(settings, layer_table(model), "1.3.0"), runtime,
                           board)
    project = render_project(WORK / "release-151", board, glue,
                             HarnessSettings(engine="executorch", iterations=1, warmup=0))
    elf = build_project(project, get_toolchain("arm-none-eabi-gcc")).elf
    capture = parse_capture(run_on_qemu(board, elf, timeout=120).stream)
    failure = explain_failure(capture, model)
    assert failure is not None
    assert failure.message.startswith("ExecuTorch failed at execute: InvalidProgram")

"""One ``executorch`` profile from PTE to a checked result bundle, and a build-only path.

The end-to-end tests use these; they call the same typed functions the ``hpx profile``
pipeline reaches through the hooks, then the core's build, QEMU runner, wire parser,
measurement and bundle writer. ``build_pte`` stops after the build and the kernel checks: the
path for Apollo boards and for the ns provider, which never runs on an emulated board.
"""

from __future__ import annotations

import time
from pathlib import Path

import attrs

from hpx_core.boards import Board, get_board
from hpx_core.build import (
    BuildResult,
    HarnessSettings,
    build_info,
    build_project,
    get_toolchain,
    render_project,
)
from hpx_core.engine import SourceSet, SymbolFinding
from hpx_core.models import ModelInfo, load_model
from hpx_core.results import BundleInputs, Measurement, measure, write_bundle
from hpx_core.run import run_on_qemu
from hpx_core.wire import Capture, parse_capture
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.engine import (
    ENGINE,
    Prepared,
    executorch_glue,
    executorch_runtime,
    executorch_sources,
    explain_failure,
    prepare,
)
from hpx_executorch.library import RuntimeLibrary
from hpx_executorch.outputs import OutputCheck
from hpx_executorch.outputs import check_output as compare_output
from hpx_executorch.verify import verify


@attrs.frozen
class PteBuild:
    """A built ExecuTorch firmware and what its kernel checks found."""

    model: str
    info: ModelInfo
    backend: str
    board: Board
    prepared: Prepared
    runtime: RuntimeLibrary
    sources: SourceSet
    build: BuildResult
    findings: tuple[SymbolFinding, ...]
    seconds: dict[str, float]


@attrs.frozen
class PteProfile:
    built: PteBuild
    capture: Capture
    measurement: Measurement
    bundle: Path


def build_pte(model_path: Path, backend: str, board_name: str, work_dir: Path,
              config: ExecutorchConfig | None = None, *, iterations: int = 3,
              allow_unpinned: bool = False) -> PteBuild:
    """Sources -> checks -> cached runtime -> firmware -> build -> kernel checks."""
    cfg = config or ExecutorchConfig()
    board = get_board(board_name)
    times: dict[str, float] = {}
    start = time.monotonic()
    model = load_model(model_path)
    sources = executorch_sources(backend, board, cfg, allow_unpinned=allow_unpinned)
    times["sources"] = time.monotonic() - start
    prepared = prepare(model, cfg, backend, board, sources)
    runtime = executorch_runtime(sources, prepared.settings, board)
    times["runtime"] = runtime.seconds
    mark = time.monotonic()
    contribution = executorch_glue(model, prepared, runtime)
    project = render_project(work_dir, board, contribution,
                             HarnessSettings(engine=ENGINE, iterations=iterations, warmup=1))
    times["generate"] = time.monotonic() - mark
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"),
                          model_sha256=model.sha256, sources=sources, jobs=2)
    times["build"] = built.seconds
    findings = verify(built.elf, prepared.settings.backend,
                      expect_portable=bool(prepared.settings.portable_ops),
                      ns_ops=prepared.settings.ns_ops)
    return PteBuild(model_path.name, model, prepared.settings.backend, board, prepared, runtime,
                    sources, built, tuple(findings), times)


def profile_pte(model_path: Path, backend: str, board_name: str, work_dir: Path,
                config: ExecutorchConfig | None = None, *, iterations: int = 3,
                allow_unpinned: bool = False) -> PteProfile:
    """build_pte, then QEMU -> wire capture -> measurement -> result bundle."""
    built = build_pte(model_path, backend, board_name, work_dir, config,
                      iterations=iterations, allow_unpinned=allow_unpinned)
    failed = [f for f in built.findings if not f.passed and f.fatal]
    if failed:
        raise RuntimeError(f"kernel verification failed: {failed}")
    return run_built(built, work_dir)


def run_built(built: PteBuild, work_dir: Path) -> PteProfile:
    """Run an already built firmware on its emulated board and measure it."""
    output = run_on_qemu(built.board, built.build.elf, timeout=600)
    built.seconds["run"] = output.seconds
    capture = parse_capture(output.stream)
    failure = explain_failure(capture, built.info)
    if failure is not None:
        raise failure
    return PteProfile(built, capture, measure(capture, built.board),
                      _bundle(built, capture, output.stream, work_dir))


def _bundle(built: PteBuild, capture: Capture, stream: bytes, work_dir: Path) -> Path:
    measurement = measure(capture, built.board)
    return write_bundle(work_dir / "results", BundleInputs(
        board=built.board.name, engine=ENGINE, status="complete",
        counter_units=built.board.counter_units(), measurement=measurement, capture=stream,
        model_sha256=built.info.sha256, toolchain=built.build.toolchain,
        build=build_info(built.build),
        provenance={"sources": built.sources.provenance,
                    "pins": {r.name: r.commit for r in built.sources.repos}},
        extra={"backend": built.backend, "runtime_key": built.runtime.key,
               "layers": [layer.name for layer in built.prepared.table.layers]}))


def check_output(profile: PteProfile, reference: Path) -> OutputCheck:
    """Compare output 0 with a float32 NCHW reference written by the export tool."""
    return compare_output(profile.built.info, profile.capture.outputs()[0], reference)

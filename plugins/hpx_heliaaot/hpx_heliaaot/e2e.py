"""One ``helia-aot`` firmware from model file to a checked ELF, for an Apollo board.

heliaAOT's output runs only on Ambiq CPUs, so without an attached EVB a profile stops after
the build: this builds through the same typed functions the ``hpx profile`` pipeline reaches
through the hooks, then the core's build, the placement check against the board's memory map
and the symbol check. The sizes feed the engine comparison in the docs.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import attrs

from hpx_core.boards import Board, get_board
from hpx_core.build import (
    BuildResult,
    HarnessSettings,
    build_project,
    get_toolchain,
    render_project,
    symbol_inventory,
)
from hpx_core.engine import SourceSet, SymbolFinding
from hpx_core.models import ModelInfo, load_model
from hpx_core.placement import PlacementReport, check_elf
from hpx_heliaaot.config import HeliaAotConfig
from hpx_heliaaot.engine import ENGINE, AotFirmware, aot_firmware, aot_kernels, aot_sources
from hpx_heliaaot.kernels import KernelLibrary
from hpx_heliaaot.symbols import verify_symbols


@attrs.frozen
class AotBuild:
    """A built heliaAOT firmware, where its memory went, and what its symbol checks found."""

    model: ModelInfo
    board: Board
    sources: SourceSet
    kernels: KernelLibrary
    firmware: AotFirmware
    build: BuildResult
    placement: PlacementReport
    findings: tuple[SymbolFinding, ...]
    seconds: dict[str, float]


def build_model(model_path: Path, board_name: str, work_dir: Path,
                config: HeliaAotConfig | None = None, *, iterations: int = 3) -> AotBuild:
    """Sources + pair check -> cached ns-cmsis-nn -> compile -> build -> placement, symbols."""
    cfg = config or HeliaAotConfig()
    board = get_board(board_name)
    times: dict[str, float] = {}
    start = time.monotonic()
    model = load_model(model_path)
    sources = aot_sources(board, cfg)
    times["sources"] = time.monotonic() - start
    kernels = aot_kernels(sources, board)
    times["kernels"] = kernels.seconds
    mark = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hpx-aot-") as scratch:
        firmware = aot_firmware(model, cfg, board, kernels, Path(scratch))
    project = render_project(work_dir, board, firmware.contribution,
                             HarnessSettings(engine=ENGINE, iterations=iterations, warmup=1))
    times["generate"] = time.monotonic() - mark
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"),
                          model_sha256=model.sha256, sources=sources, jobs=2)
    times["build"] = built.seconds
    placement = check_elf(board, built.elf)
    findings = verify_symbols(cfg.prefix, set(symbol_inventory(built.elf).names()))
    return AotBuild(model, board, sources, kernels, firmware, built, placement,
                    tuple(findings), times)

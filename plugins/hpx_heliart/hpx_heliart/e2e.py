"""One ``helia-rt`` firmware from model file to a checked ELF, for an Apollo board.

heliaRT runs only on Ambiq CPUs, so without an attached EVB a profile stops after the build:
this builds through the same typed functions the ``hpx profile`` pipeline reaches through the
hooks, then the core's build, the placement check against the board's memory map and the
backend's symbol check. The sizes feed the engine comparison in the docs.
"""

from __future__ import annotations

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
from hpx_core.tflm_family import plan_arena
from hpx_heliart.config import HeliaRtConfig
from hpx_heliart.engine import (
    ENGINE,
    HeliaRtFirmware,
    check_backend,
    heliart_firmware,
    heliart_library,
    heliart_sources,
)
from hpx_heliart.library import HeliaRtLibrary
from hpx_heliart.symbols import verify_symbols


@attrs.frozen
class HeliaRtBuild:
    """A built heliaRT firmware, where its memory went, and what its symbol checks found."""

    model: ModelInfo
    backend: str
    board: Board
    sources: SourceSet
    library: HeliaRtLibrary
    firmware: HeliaRtFirmware
    build: BuildResult
    placement: PlacementReport
    findings: tuple[SymbolFinding, ...]
    seconds: dict[str, float]


def build_model(model_path: Path, backend: str, board_name: str, work_dir: Path,
                config: HeliaRtConfig | None = None, *, iterations: int = 3) -> HeliaRtBuild:
    """Sources -> cached library -> firmware -> build -> placement and symbol checks."""
    cfg = config or HeliaRtConfig()
    chosen = check_backend(backend)
    board = get_board(board_name)
    times: dict[str, float] = {}
    start = time.monotonic()
    model = load_model(model_path)
    sources = heliart_sources(chosen, board, cfg)
    times["sources"] = time.monotonic() - start
    library = heliart_library(sources, chosen, board, cfg)
    times["library"] = library.seconds
    mark = time.monotonic()
    firmware = heliart_firmware(model, cfg, sources, library, plan_arena(None, board))
    project = render_project(work_dir, board, firmware.contribution,
                             HarnessSettings(engine=ENGINE, iterations=iterations, warmup=1))
    times["generate"] = time.monotonic() - mark
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"),
                          model_sha256=model.sha256, sources=sources, jobs=2)
    times["build"] = built.seconds
    placement = check_elf(board, built.elf, firmware.contribution.buffers)
    findings = verify_symbols(chosen, set(symbol_inventory(built.elf).names()))
    return HeliaRtBuild(model, chosen, board, sources, library, firmware, built, placement,
                        tuple(findings), times)

"""One ``tflm`` profile from model file to a checked result bundle, timing every stage.

The end-to-end tests and ``benchmarks/`` use it; it calls the same typed functions the
``hpx profile`` pipeline reaches through the hooks, then the core's build, QEMU runner, wire
parser, measurement and bundle writer.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import get_board
from hpx_core.build import HarnessSettings, build_info, build_project, get_toolchain, render_project
from hpx_core.errors import RunError
from hpx_core.models import load_model
from hpx_core.placement import check_elf
from hpx_core.results import BundleInputs, Measurement, measure, write_bundle
from hpx_core.run import run_on_qemu
from hpx_core.tflm_family import plan_arena
from hpx_core.tflm_family.results import family_extra
from hpx_core.wire import Capture, parse_capture
from hpx_tflm.config import TflmConfig
from hpx_tflm.engine import ENGINE, tflm_firmware, tflm_library, tflm_sources


@attrs.frozen
class TflmProfile:
    """What one profile measured, and how long each stage took (seconds)."""

    model: str
    backend: str
    board: str
    measurement: Measurement
    capture: Capture
    extra: dict[str, Any]
    elf: Path
    bundle: Path
    library_built: bool
    app_files: int
    seconds: dict[str, float]

    @property
    def whole(self) -> int:
        return self.measurement.whole_median

    @property
    def layer_sum(self) -> int:
        return self.measurement.layer_sum


def profile_model(
    model_path: Path, backend: str, board_name: str, work_dir: Path,
    config: TflmConfig | None = None, arena_size: int | None = None, iterations: int = 3,
) -> TflmProfile:
    """Sources -> engine library -> firmware -> build -> QEMU -> checked bundle."""
    cfg = config or TflmConfig()
    board = get_board(board_name)
    times: dict[str, float] = {}
    start = time.monotonic()
    model = load_model(model_path)
    sources = tflm_sources(backend, board, cfg)
    times["sources"] = time.monotonic() - start
    library = tflm_library(sources, backend, board)
    times["library"] = library.seconds
    mark = time.monotonic()
    firmware = tflm_firmware(model, cfg, sources, library, plan_arena(arena_size, board))
    project = render_project(work_dir, board, firmware.contribution,
                             HarnessSettings(engine=ENGINE, iterations=iterations, warmup=1))
    times["generate"] = time.monotonic() - mark
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"),
                          model_sha256=model.sha256, sources=sources, jobs=2)
    times["build"] = built.seconds
    check_elf(board, built.elf, firmware.contribution.buffers)
    output = run_on_qemu(board, built.elf, timeout=600)
    times["run"] = output.seconds
    mark = time.monotonic()
    capture = parse_capture(output.stream)
    for err in capture.of("ERROR"):
        raise RunError(f"firmware error {err.number('code')} in {err.text('stage')}",
                       "see hpx_tflm_glue.h for the engine's codes")
    measurement = measure(capture, board)
    extra = family_extra(capture, firmware.info, model)
    bundle = write_bundle(work_dir / "results", BundleInputs(
        board=board.name, engine=ENGINE, status="complete", counter_units=board.counter_units(),
        measurement=measurement, capture=output.stream, model_sha256=model.sha256,
        toolchain=built.toolchain, build=build_info(built), extra=extra))
    times["results"] = time.monotonic() - mark
    times["total"] = time.monotonic() - start
    return TflmProfile(
        model=model_path.name, backend=backend, board=board.name, measurement=measurement,
        capture=capture, extra=extra, elf=built.elf, bundle=bundle,
        library_built=library.built, app_files=built.compiled, seconds=times,
    )

"""The build bundle of a run that stopped after its checked build (``hpx build MODEL``, a
matrix cell on a board without a probe)."""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.firmware import build_info
from hpx_core.pipeline.engine_code import engine_code
from hpx_core.pipeline.facts import config_json, source_provenance
from hpx_core.pipeline.products import ProfileOutcome, need
from hpx_core.plugins import Registry
from hpx_core.results.build_bundle import BuildBundleInputs, write_build_bundle
from hpx_core.run.record import provenance


def write_build(outcome: ProfileOutcome, results_dir: Path, registry: Registry,
                note: str | None = None) -> Path:
    """Write the build bundle of ``outcome`` (which must have passed kernel verification)."""
    if "kernel verification" not in outcome.stages:
        raise ValueError("the run stopped before its kernel checks")
    built = need(outcome.build, "build")
    engine = outcome.config.engine
    contribution = need(outcome.contribution, "firmware")
    code = engine_code(registry.engine(engine.type).module, contribution.files)
    inputs = BuildBundleInputs(
        board=need(outcome.board, "board").name, engine=engine.type, backend=engine.backend,
        model_sha256=need(outcome.model, "model").sha256,
        toolchain=f"{built.toolchain} {built.toolchain_version}", elf=built.elf,
        work_dir=built.elf.parent.parent,  # <work folder>/build/hpx_app.elf
        build=build_info(built),
        placement=attrs.asdict(need(outcome.placement, "placement")),
        kernel_checks=[attrs.asdict(f) for f in outcome.findings],
        config=config_json(outcome.validated),
        provenance=provenance(None, source_provenance(outcome.sources, registry.catalog)
                              | {"engine_code": code.provenance()}), note=note,
        engine_libraries=tuple(lib.label for lib in contribution.libraries),
        engine_code=code.sha256,
    )
    return write_build_bundle(results_dir, inputs)

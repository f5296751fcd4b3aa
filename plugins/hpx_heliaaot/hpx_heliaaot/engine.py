"""The ``helia-aot`` engine's steps as typed functions; the hooks in ``plugin.py`` adapt them.

Order for one profile: :func:`aot_sources` (license check, ns-cmsis-nn at its pin or
``cmsis_nn_path``, then the helia-aot/ns-cmsis-nn pair) -> :func:`aot_module` (compile the
model in-process, first, so a model the compiler refuses stops the run before the kernel library
is built) -> :func:`aot_kernels` -> :func:`aot_firmware` (the glue on the generated context's
operator callback, and a CMake fragment adding the module and the cached ns-cmsis-nn) -> core
build -> symbol checks -> an Apollo board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import jinja2
from hpx_tflm_family import InputSpec, host_outputs, input_bytes

from hpx_core.sdk import FirmwareContribution, MemoryLayout, SourceSet
from hpx_core.sdk.enginelib import cmake_quote
from hpx_core.sdk.firmware import Board, Toolchain, all_boards
from hpx_core.sdk.models import ModelInfo
from hpx_core.sdk.sources import PinSet, check_may_run, materialize
from hpx_heliaaot.compiler import AotModule, check_platform, compile_model
from hpx_heliaaot.config import HeliaAotConfig
from hpx_heliaaot.identity import ENGINE
from hpx_heliaaot.kernels import KernelLibrary, ensure_kernels
from hpx_heliaaot.memory import tensor_rules
from hpx_heliaaot.versions import check_pair

GLUE = "hpx_aot_glue.c"
MODULE_DIR = "aot"
NO_LAYER = 0xFFFFFFFF


def aot_sources(catalog: PinSet, board: Board, config: HeliaAotConfig, *,
                offline: bool = False) -> SourceSet:
    """ns-cmsis-nn after the license check, then refuse a helia-aot that cannot build on it."""
    check_may_run(catalog, ENGINE, None, board, all_boards().values())
    check_platform(board, config.platform)
    sources = materialize(catalog, ENGINE, None, board=board, source_path=config.cmsis_nn_path,
                          allow_unpinned=config.cmsis_nn_path is not None, offline=offline)
    check_pair(catalog, sources.path_of("ns-cmsis-nn"))
    return sources


def aot_kernels(sources: SourceSet, board: Board, jobs: int = 2,
                toolchain: Toolchain | None = None) -> KernelLibrary:
    return ensure_kernels(sources, board.cpu_flags, jobs=jobs, toolchain=toolchain)


def _bytes(value: Iterable[bytes]) -> tuple[bytes, ...]:
    return tuple(value)


def _maps(value: Iterable[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    return tuple(value)


@attrs.frozen
class AotFacts:
    """What the results stage reads back: the compiler's manifest and the host outputs."""

    helia_aot: str
    platform: str
    prefix: str
    input: str
    operators: tuple[Mapping[str, Any], ...] = attrs.field(converter=_maps)
    memory_plan: Mapping[str, Any]
    host_outputs: tuple[bytes, ...] = attrs.field(converter=_bytes)


def _glue(module: AotModule, prefix: str, inputs: tuple[bytes, ...], outputs: int) -> str:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("hpx_heliaaot", "glue"), undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True, autoescape=False)
    max_id = max((op.op_id for op in module.operators), default=0)
    layer_of_op = [NO_LAYER] * (max_id + 1)
    for index, op in enumerate(module.operators):
        layer_of_op[op.op_id] = index
    layers = [{"name": op.identity, "op": op.op_type} for op in module.operators]
    return env.get_template(f"{GLUE}.j2").render(
        prefix=prefix, layers=layers, max_id=max_id, layer_of_op=layer_of_op,
        inputs=[list(data) for data in inputs], outputs=outputs)


def _module_files(module: AotModule) -> dict[str, str]:
    return {f"{MODULE_DIR}/{module.root.name}/{p.relative_to(module.root).as_posix()}":
            p.read_text(encoding="utf-8")
            for p in sorted(module.root.rglob("*")) if p.is_file()}


def _cmake(module_name: str, kernels: KernelLibrary) -> str:
    includes = " ".join(cmake_quote(p) for p in kernels.include_dirs)
    return (
        "# heliaAOT module + the cached ns-cmsis-nn; the glue is compiled with the module so\n"
        "# the module's own headers come first on its include path.\n"
        f"add_subdirectory(${{CMAKE_CURRENT_LIST_DIR}}/{MODULE_DIR}/{module_name} hpx_aot)\n"
        f"target_sources({module_name} PRIVATE ${{CMAKE_CURRENT_LIST_DIR}}/{GLUE})\n"
        f"target_include_directories({module_name} PRIVATE {includes}\n"
        "  ${CMAKE_SOURCE_DIR}/hpx/harness ${CMAKE_SOURCE_DIR}/hpx/counters)\n"
        f"target_compile_definitions({module_name} PRIVATE "
        f"{' '.join(cmake_quote(d) for d in kernels.defines)})\n"
        f"target_compile_options({module_name} PRIVATE ${{HPX_COMMON_FLAGS}})\n"
        f"target_link_libraries({module_name} PUBLIC {cmake_quote(kernels.archive)})\n"
        f"target_link_libraries(hpx_app PRIVATE {module_name})\n"
    )


def aot_module(model: ModelInfo, config: HeliaAotConfig, board: Board, work_dir: Path,
               log: Path, layout: MemoryLayout | None = None) -> AotModule:
    """Compile ``model`` with heliaAOT for the board's platform (tensors where ``layout`` says
    the user placed them); its output goes to ``log``."""
    platform = check_platform(board, config.platform)
    return compile_model(Path(model.path), work_dir / "aot-out", prefix=config.prefix,
                         module_name=config.module_name, platform=platform, log=log,
                         tensor_rules=tensor_rules(layout))


def aot_firmware(model: ModelInfo, config: HeliaAotConfig, module: AotModule,
                 kernels: KernelLibrary) -> FirmwareContribution:
    """Wrap the compiled ``module`` in the harness's engine interface."""
    spec = InputSpec.parse(config.input, config.input_seed)
    inputs = input_bytes(spec, model)
    facts = AotFacts(
        helia_aot=module.version, platform=module.platform, prefix=config.prefix,
        input=spec.describe(),
        operators=[{"op_id": op.op_id, "op_type": op.op_type, "name": op.name,
                    "layer": op.identity} for op in module.operators],
        memory_plan=module.memory_plan,
        host_outputs=host_outputs(Path(model.path).read_bytes(), inputs, model),
    )
    files = _module_files(module) | {
        GLUE: _glue(module, config.prefix, inputs, len(model.outputs)),
    }
    return FirmwareContribution(
        files=files, cmake=_cmake(config.module_name, kernels),
        fingerprint_inputs={"ns_cmsis_nn": kernels.key, "model": model.sha256,
                            "helia_aot": module.version},
        libraries=[kernels.use()],
        facts=facts)

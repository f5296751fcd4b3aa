"""The ``executorch`` engine's steps as typed functions; ``plugin.py`` only adapts the hooks.

Order for one profile: :func:`executorch_sources` -> :func:`prepare` (settings and the checks
that must pass before anything is built) -> :func:`executorch_glue` (cached runtime + model glue)
-> core build/run/capture -> :func:`explain_failure` and the output check on the capture.
"""

from __future__ import annotations

import attrs

from hpx_core.sdk import ConfigError, FirmwareContribution, MemoryLayout, RunError, SourceSet
from hpx_core.sdk.cache import cache_root
from hpx_core.sdk.firmware import Board, Toolchain, all_boards
from hpx_core.sdk.models import ModelInfo
from hpx_core.sdk.results import Capture
from hpx_core.sdk.sources import PinSet, SourceCache, check_may_run, materialize, materialize_pins
from hpx_executorch.compat import (
    check_ns_ops,
    check_release,
    check_runnable,
    missing_ns_message,
    ns_operators,
)
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.firmware import STAGES, executorch_firmware
from hpx_executorch.identity import BACKENDS, ENGINE, PINS
from hpx_executorch.layers import LayerTable, layer_table
from hpx_executorch.library import RuntimeLibrary, ensure_runtime
from hpx_executorch.runtime_cmake import RuntimeOptions
from hpx_executorch.schemas import runtime_version
from hpx_executorch.settings import Settings, resolve

PROVIDER_REPO = {"arm": "CMSIS-NN", "ns": "ns-cmsis-nn"}
# executorch::runtime::Error values the runner may report
ERRORS = {0x01: "Internal", 0x12: "InvalidArgument", 0x13: "InvalidType",
          0x14: "OperatorMissing", 0x20: "NotFound", 0x21: "MemoryAllocationFailed",
          0x22: "AccessFailed", 0x23: "InvalidProgram", 0x30: "DelegateInvalidCompatibility"}


def check_backend(backend: str | None) -> str:
    if backend not in BACKENDS:
        raise ConfigError(f"engine executorch needs engine.backend arm or ns, got {backend!r}",
                          "arm: Arm CMSIS-NN (any board); ns: ns-cmsis-nn (Apollo boards only)")
    return backend


def executorch_sources(catalog: PinSet, backend: str | None, board: Board,
                       config: ExecutorchConfig, *, offline: bool = False,
                       allow_unpinned: bool = False) -> SourceSet:
    """nsx-executorch (+ ExecuTorch) and exactly one provider, after the license check."""
    chosen = check_backend(backend)
    provider = PROVIDER_REPO[chosen]
    overrides = {provider: config.cmsis_nn_path} if config.cmsis_nn_path else {}
    if config.cmsis_nn_ref is None:
        return materialize(catalog, ENGINE, chosen, board=board, source_path=config.source_path,
                           overrides=overrides, offline=offline, allow_unpinned=allow_unpinned)
    # A provider at another commit: its pin moved, checked out in a cache of its own (the
    # shared checkout stays at the pin for other runs); never a qualified run.
    check_may_run(catalog, ENGINE, chosen, board, all_boards().values())
    pins = catalog.pins_for(ENGINE, chosen)
    moved = attrs.evolve(next(p for p in pins if p.name == provider), commit=config.cmsis_nn_ref)
    primary = catalog.engine(ENGINE).primary
    given = {primary: config.source_path} if config.source_path else {}
    found = materialize_pins([p for p in pins if p.name != provider], overrides=given,
                             offline=offline, allow_unpinned=allow_unpinned)
    store = SourceCache(cache_root() / "provider-refs" / config.cmsis_nn_ref[:12])
    extra = materialize_pins([moved], offline=offline, cache=store)
    return SourceSet(repos=(*found.repos, *extra.repos), provenance="development-overrides")


def absent_submodules(sources: SourceSet) -> list[str]:
    """Pinned submodules of the runtime that this source set does not have."""
    pin = PINS.pin(PINS.engine(ENGINE).primary)
    present = {r.name for r in sources.repos}
    return [s.path for s in pin.submodules if s.name not in present]


@attrs.frozen
class Prepared:
    """What the checks decided: the resolved settings and the program's layer table."""

    settings: Settings
    table: LayerTable
    runtime_version: str


def prepare(model: ModelInfo, config: ExecutorchConfig, backend: str | None, board: Board,
            sources: SourceSet, check_layers: str = "off") -> Prepared:
    """Every check that must pass before the runtime is built (release, ns ops, known faults);
    ``check_layers`` (``FirmwareRequest.check_layers``) decides what the ETDump records."""
    chosen = check_backend(backend)
    root = sources.path_of("nsx-executorch")
    version = runtime_version(root)
    check_release(model, root, version)
    settings = resolve(config, chosen, model, check_layers)
    check_ns_ops(model, settings.backend, settings.ns_ops)
    check_runnable(model)
    return Prepared(settings, layer_table(model), version)


def runtime_options(settings: Settings, board: Board) -> RuntimeOptions:
    """The runtime's options; the arm provider registers only the program's Cortex-M
    operators, the ns provider every one (its convolutions prove the provider, see
    :mod:`hpx_executorch.verify`)."""
    selected = settings.cortex_m_ops if settings.backend == "arm" else None
    return RuntimeOptions(settings.backend, settings.ns_ops, settings.portable_ops,
                          board.cpu_flags, selected)


def executorch_runtime(sources: SourceSet, settings: Settings, board: Board,
                       jobs: int = 2, toolchain: Toolchain | None = None,
                       kernels: str = "model") -> RuntimeLibrary:
    """The runtime for this provider/kernels/CPU/toolchain/pins, built once into the cache (the
    portable operators once per operator set; ``kernels='all'``: every unit of the core)."""
    return ensure_runtime(sources, runtime_options(settings, board), jobs=jobs,
                          toolchain=toolchain, kernels=kernels)


def executorch_glue(model: ModelInfo, prepared: Prepared, runtime: RuntimeLibrary,
                    board: Board, layout: MemoryLayout | None = None) -> FirmwareContribution:
    return executorch_firmware(model, prepared.settings, prepared.table, runtime, board, layout)


def explain_failure(capture: Capture, model: ModelInfo) -> RunError | None:
    """The runner's ERROR record in words; OperatorMissing at load names the missing ops."""
    record = capture.first("ERROR")
    if record is None:
        return None
    code = record.number("code")
    stage_no, error_no = code >> 8, code & 0xFF
    stage = next((k.lower() for k, v in STAGES.items() if v == stage_no), record.text("stage"))
    error = ERRORS.get(error_no, f"error 0x{error_no:02x}")
    if stage == "load_method" and error == "OperatorMissing":
        names = ns_operators(model) or sorted(model.resolver_ops)
        message, hint = missing_ns_message(names)
        return RunError(f"Method::load() failed: {message}", hint)
    return RunError(f"ExecuTorch failed at {stage}: {error} (code 0x{code:x})",
                    "see the run's raw capture; check the program against the runtime")

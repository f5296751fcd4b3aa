# mypy: disable-error-code="empty-body"
"""The hpx plugin contract: every hook an engine plugin may implement.

An engine plugin is a module registered under the ``hpx.engines`` entry-point group. It
implements some of these hooks with :data:`hpx_core.hookimpl`. The core calls the
engine-specific hooks (validate, materialize, generate, parse) only on the plugin that declared
the selected engine, so an implementation never needs to check which engine is meant.
``hpx_verify_symbols`` goes to every plugin: any plugin may add checks to any build.
``hpx_match_manifest`` goes to the plugin of the base bundle's engine.

A hook either returns its record or raises :class:`hpx_core.errors.HpxError` (usually a
:class:`~hpx_core.errors.ConfigError` or :class:`~hpx_core.errors.SourceError`) with a hint the
user can act on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

from hpx_core import PROJECT_NAME

if TYPE_CHECKING:
    from hpx_core.engine import (
        ConfigContext,
        EngineDescriptor,
        FirmwareContribution,
        LayerRecord,
        SourceSet,
        SymbolFinding,
    )

hookspec = pluggy.HookspecMarker(PROJECT_NAME)


@hookspec
def hpx_engines() -> list[EngineDescriptor]:
    """Describe the engines this plugin provides.

    Called once at start-up on every plugin. Each :class:`~hpx_core.engine.EngineDescriptor`
    names the engine (the value of ``engine.type`` in a config), the model formats it reads
    (``"tflite"``, ``"pte"``), its backends, and the attrs class of its ``engine.config`` section.
    Two plugins declaring the same engine name is an error: hpx refuses to start that engine.
    """


@hookspec(firstresult=True)
def hpx_validate_config(ctx: ConfigContext) -> Any:
    """Turn the raw ``engine.config`` section into the engine's typed, frozen config.

    Use ``ctx.document.structure(MyConfig, "engine.config")`` for the structural part: it refuses
    unknown keys with ``file:line:col`` and a did-you-mean, and names the path and expected type
    of a wrongly typed value. Check cross-field rules here too and raise them with
    ``ctx.document.error("engine.config.key", message, hint)`` so they point at the YAML line.
    Return the config object; the core hands it to later hooks as ``ctx.engine_config``.
    """


@hookspec(firstresult=True)
def hpx_materialize_sources(ctx: Any) -> SourceSet:
    """Bring the engine's sources to disk at their pinned commits and say how trusted they are.

    Ask the core for the pins (``hpx_core.sources``); never hard-code URLs. Honour the user's
    ``source_path``-style overrides and stamp the provenance accordingly. Must not fetch
    anything the board may not run (the core checks licenses before calling this).
    """


@hookspec(firstresult=True)
def hpx_generate_firmware(ctx: Any) -> FirmwareContribution:
    """Return the engine's glue for the core firmware harness.

    The glue implements the harness's engine interface (load the model, refill inputs, run one
    inference, name layers) and adds the engine's libraries through a CMake fragment. The
    harness itself, the wire protocol and the counter backends belong to the core: an engine
    contributes only what is specific to it.
    """


@hookspec
def hpx_verify_symbols(ctx: Any, inventory: Any) -> list[SymbolFinding]:
    """Inspect the linked ELF's symbol inventory and report what linked.

    Called on every plugin after a build. Return findings such as "the CMSIS-NN convolution
    kernel linked" or "no Ambiq kernels present"; a failed finding with ``fatal=True`` stops the
    run before anything is flashed or executed.
    """


@hookspec(firstresult=True)
def hpx_parse_results(ctx: Any, capture: Any) -> list[LayerRecord]:
    """Name the captured per-layer records the way the engine's users know them.

    The core has already checked and decoded the wire stream; the engine maps layer indices to
    operator names and stable layer identities (e.g. ``CONV_2D`` or
    ``cortex_m::quantized_conv2d:c0i1``).
    """


@hookspec(firstresult=True)
def hpx_result_extras(ctx: Any, capture: Any) -> dict[str, Any] | None:
    """Add the engine's own facts to the result bundle's ``extra`` section.

    Typical answers: which input was fed (file, seeded random, zeros), the arena actually
    used, and the output tensors the firmware sent compared with a host reference (exact
    match, or the largest difference). Only measured or recorded facts belong here.
    """


@hookspec(firstresult=True)
def hpx_match_manifest(
    document: Any, model: str | None, base_sha256: str, candidate_sha256: str
) -> dict[str, Any] | None:
    """Translate the engine's own export manifest into a match manifest for ``hpx compare``.

    ``document`` is the parsed file the user passed as ``--manifest``; answer ``None`` when it
    is not one of the engine's. Otherwise return the core's ``hpx_match: 1`` mapping for the two
    programs with these SHA-256s (of ``model`` when given): the layer pairs, and ``regions``
    naming the layers on each side that are compared as one sum.
    """

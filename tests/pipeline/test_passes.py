"""The uncounted passes a run compiles in: the memory pass by default, the layer check when
asked and the engine can, each switching on only its own harness setting."""

from __future__ import annotations

from pathlib import Path

from hpx_core.config.validate import validate_config
from hpx_core.contract import FirmwareContribution
from hpx_core.firmware import HarnessSettings
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.passes import CORE_PASSES, harness_settings
from hpx_core.plugins import default_registry

KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")


def _context(**flags: object) -> RunContext:
    overrides = {"model.path": (str(KWS), "MODEL"), "engine.type": ("tflm", "--engine")}
    overrides |= {key: (value, key) for key, value in flags.items()}
    registry = default_registry()
    return RunContext(validate_config(None, overrides, registry), registry)


def test_the_memory_pass_is_compiled_in_by_default_and_alone() -> None:
    settings = harness_settings(_context(), FirmwareContribution(), HarnessSettings("tflm"))
    assert settings == HarnessSettings("tflm", switches=("HPX_MEMORY_PASS",))
    assert [p.name for p in CORE_PASSES if p.wanted(_context())] == ["memory"]


def test_profiling_memory_false_leaves_it_out() -> None:
    ctx = _context(**{"profiling.memory": False})
    assert harness_settings(ctx, FirmwareContribution(), HarnessSettings("tflm")) == \
        HarnessSettings("tflm")


def test_the_layer_check_needs_the_engine_reference_whatever_the_memory_pass_does() -> None:
    ctx = _context(**{"profiling.check_layers": "all"})
    settings = harness_settings(ctx, FirmwareContribution(), HarnessSettings("tflm"))
    assert settings.switches == ("HPX_MEMORY_PASS",)

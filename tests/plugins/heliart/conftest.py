"""Paths of the committed models, and the heliaRT version header for distribution bundles."""

from __future__ import annotations

from pathlib import Path

from hpx_heliart.identity import PINS

from hpx_core.sources import core_pins, merge_pins

REPO = Path(__file__).resolve().parents[3]
MODELS = REPO / "examples" / "models" / "mlperf_tiny"
MLPERF_TINY = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
VERSION_HEADER = "tensorflow/lite/micro/helia_rt_version.h"


def version_header(version: str) -> str:
    """heliaRT's version header as its releases write it."""
    return (
        "#ifndef TENSORFLOW_LITE_MICRO_HELIA_RT_VERSION_H_\n"
        "#define TENSORFLOW_LITE_MICRO_HELIA_RT_VERSION_H_\n\n"
        f'#define HELIA_RT_VERSION "v{version}"  // x-release-please-version\n\n#endif\n'
    )

CATALOG = merge_pins(core_pins(), PINS)
"""The core's pins with this engine's own, as the registry merges them."""

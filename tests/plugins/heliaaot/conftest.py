"""Committed models, and a fake installed helia-aot (its metadata, and its CMSIS_NN_VERSION)."""

from __future__ import annotations

from pathlib import Path

from hpx_heliaaot.identity import PINS

from hpx_core.sources import core_pins, merge_pins

REPO = Path(__file__).resolve().parents[3]
MODELS = REPO / "examples" / "models" / "mlperf_tiny"
MLPERF_TINY = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")


def fake_helia_aot(site: Path, version: str, kernels: str | None = None) -> Path:
    """A ``site-packages`` folder holding helia-aot ``version``'s metadata (and, given
    ``kernels`` like ``7.47.0``, the ``defines.py`` that states the ns-cmsis-nn it needs)."""
    info = site / f"helia_aot-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.4\nName: helia-aot\nVersion: {version}\n", encoding="utf-8")
    files = ["METADATA"]
    if kernels is not None:
        major, minor, patch = kernels.split(".")
        defines = site / "helia_aot" / "aot" / "defines.py"
        defines.parent.mkdir(parents=True)
        defines.write_text(
            f"CMSIS_NN_VERSION = SemanticVersion(major={major}, minor={minor}, patch={patch})\n",
            encoding="utf-8")
        files.append("../helia_aot/aot/defines.py")
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in files), encoding="utf-8")
    return site


def ns_cmsis_nn_tree(root: Path, version: str) -> Path:
    """The file ns-cmsis-nn states its version in, as its releases write it."""
    major, minor, patch = version.split(".")
    header = root / "Include" / "arm_nn_types.h"
    header.parent.mkdir(parents=True)
    header.write_text(
        f"#define NS_CMSIS_NN_VERSION_MAJOR ({major})\n"
        f"#define NS_CMSIS_NN_VERSION_MINOR ({minor})\n"
        f"#define NS_CMSIS_NN_VERSION_PATCH ({patch})\n", encoding="utf-8")
    return root

CATALOG = merge_pins(core_pins(), PINS)
"""The core's pins with this engine's own, as the registry merges them."""

"""Firmware build: render the project, find a toolchain, build with CMake + Ninja."""

from hpx_core.firmware.builder import BuildResult, build_info, build_project
from hpx_core.firmware.elfinfo import (
    SectionSizes,
    Symbol,
    SymbolInventory,
    section_sizes,
    symbol_inventory,
)
from hpx_core.firmware.render import HarnessSettings, Project, load_project, render_project
from hpx_core.firmware.toolchain import Toolchain, detect_toolchains, get_toolchain

__all__ = [
    "BuildResult",
    "HarnessSettings",
    "Project",
    "SectionSizes",
    "Symbol",
    "SymbolInventory",
    "Toolchain",
    "build_info",
    "build_project",
    "detect_toolchains",
    "get_toolchain",
    "load_project",
    "render_project",
    "section_sizes",
    "symbol_inventory",
]

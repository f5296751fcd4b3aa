"""What the registry reads at start-up: the engine's name, backends and pins.

Every hpx command loads every plugin, so the plugin module imports only this and the config;
the hooks import the engine's machinery (NumPy, the library build) when they are called.
"""

from __future__ import annotations

from hpx_core.sdk.sources import load_pins

ENGINE = "kernelbench"
BACKENDS = ("portable", "cmsis_nn", "ns")
PINS = load_pins("hpx_kernelbench")

"""What the registry reads at start-up: the engine's name, backends and pins.

Kept apart from :mod:`hpx_tflm.engine` so that loading the plugin (every hpx command does)
imports nothing of the library build: a run of another engine never pays for it.
"""

from __future__ import annotations

from hpx_core.sdk.sources import load_pins

ENGINE = "tflm"
BACKENDS = ("reference", "cmsis_nn")
PINS = load_pins("hpx_tflm")

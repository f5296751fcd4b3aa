"""What the registry reads at start-up: the engine's name, providers and pins.

Kept apart from :mod:`hpx_executorch.engine` so that loading the plugin (every hpx command
does) imports nothing of the runtime build: a run of another engine never pays for it.
"""

from __future__ import annotations

from hpx_core.sdk.sources import load_pins

ENGINE = "executorch"
BACKENDS = ("arm", "ns")
PINS = load_pins("hpx_executorch")

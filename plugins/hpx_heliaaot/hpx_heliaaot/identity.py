"""What the registry reads at start-up: the engine's name and pins.

Kept apart from :mod:`hpx_heliaaot.engine` so that loading the plugin (every hpx command
does) imports nothing of the compiler's driver: a run of another engine never pays for it.
"""

from __future__ import annotations

from hpx_core.sdk.sources import load_pins

ENGINE = "helia-aot"
PINS = load_pins("hpx_heliaaot")

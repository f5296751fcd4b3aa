"""What the registry reads at start-up: the engine's name, backends and format name.

The engine has no pins (``EngineDescriptor.pins`` is None): its C files ship inside the package
and nothing is fetched, so the license check has nothing of it to weigh. A ``pins.toml`` with
no repository is refused (its ``primary`` must name a declared repository).
"""

from __future__ import annotations

ENGINE = "tinyseq"
FORMAT = "tinyseq"
BACKENDS = ("plain", "unrolled")
PINS = None

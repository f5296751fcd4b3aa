"""What comes back from the device for an engine to read: the capture of the wire stream
(records, files, the engine's own status words)."""

from __future__ import annotations

from hpx_core.wire import Capture

__all__ = ["Capture"]

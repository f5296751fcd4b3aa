"""What the firmware's power pass would send and what the instrument would see, for the tests
that run it against a fake probe and a fake Joulescope.

:func:`with_power_records` puts the pass's ``POWER`` and ``POWEREND`` into a real capture
where the harness sends them (before the engine's outputs); :func:`pass_pieces` lays out the
trace of the pass: idle, each whole inference, then each instrumented inference layer by
layer (states 3 and 2 by parity), each followed by idle.
"""

from __future__ import annotations

from collections.abc import Sequence

from hpx_core.wire import parse_capture
from hpx_core.wire.encode import encode_record


def with_power_records(capture: bytes, iterations: int, board: str | None = None
                       ) -> tuple[bytes, int]:
    """``capture`` with POWER and POWEREND before the engine's outputs (renumbered, START
    claiming ``board`` when given); and the offset just past POWER."""
    records = [(r.type, dict(r.fields)) for r in parse_capture(capture).records]
    if board is not None:
        records[0][1]["board"] = board
    at = next(i for i, (kind, _) in enumerate(records) if kind == "OUTPUT")
    records[at:at] = [("POWER", {"iterations": iterations}),
                      ("POWEREND", {"windows": 2 * iterations})]
    out, power_at = bytearray(), 0
    for seq, (kind, fields) in enumerate(records):
        out += encode_record(seq, kind, fields)
        power_at = len(out) if kind == "POWER" else power_at
    return bytes(out), power_at


def pass_pieces(whole_amps: Sequence[float], layer_amps: Sequence[float], *, whole: int,
                layer: int, idle: int, idle_amps: float) -> list[tuple[int, float, int]]:
    """The pass's trace as (samples, amperes, state) pieces: one whole inference per entry of
    ``whole_amps``, then as many instrumented ones, layer i drawing ``layer_amps[i]``."""
    pieces = [(idle, idle_amps, 0)]
    for amps in whole_amps:
        pieces += [(whole, amps, 3), (idle, idle_amps, 0)]
    for _ in whole_amps:
        pieces += [(layer, a, 3 if i % 2 == 0 else 2) for i, a in enumerate(layer_amps)]
        pieces += [(idle, idle_amps, 0)]
    return pieces

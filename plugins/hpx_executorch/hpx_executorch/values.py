"""Per-value facts of a PTE the core's model summary does not keep: tensor dim orders.

The known-unrunnable check needs the memory layout of an operator's input, not only of the
program's inputs and outputs. Read with the core's bounds-checked FlatBuffers access.
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.sdk.flatbuf import U8, U64, FlatBuffer
from hpx_core.sdk.models import Budget

_EVALUE_TENSOR = 5


def value_dim_orders(path: Path, plan_name: str = "forward") -> dict[int, tuple[int, ...]]:
    """Dim order of every tensor value in ``plan_name`` (value index -> order)."""
    data = path.read_bytes()
    budget = Budget(len(data), path.name, "ExecuTorch program")
    fb = FlatBuffer(data, budget)
    size = fb.read(U64, 16) if data[8:10] == b"eh" else None  # extended header: program size
    program = FlatBuffer(data, budget, limit=size).root()
    plans = program.tables(1)
    chosen = next((p for p in plans if p.string(0) == plan_name), plans[0] if plans else None)
    if chosen is None:
        return {}
    orders: dict[int, tuple[int, ...]] = {}
    for index, value in enumerate(chosen.tables(2)):
        tag, val = value.union(0)
        if tag == _EVALUE_TENSOR and val is not None:
            orders[index] = val.scalars(3, U8)
    return orders

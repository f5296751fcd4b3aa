"""A cell's numbers, read back from its verified bundle: counts, sizes, the memory the device
used (the stack's deepest point, the arena's bytes in use) and the output check."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.compare import load_view
from hpx_core.errors import HpxError
from hpx_core.results.build_bundle import is_build_bundle, read_build_bundle
from hpx_core.results.memory import MemoryUse
from hpx_core.results.outputs import Outputs, OutputsUnchecked


@attrs.frozen
class CellNumbers:
    """Whole-inference and per-layer-sum counts (absent for builds), image sizes, the stack and
    arena bytes the memory pass measured (absent without the pass, or an engine without an
    ``arena`` buffer), and whether the device's outputs matched the host reference (absent when
    the engine does not check)."""

    units: str | None = None
    whole: int | None = None
    layer_sum: int | None = None
    layers: int = 0
    validity: str | None = None
    text: int | None = None
    data: int | None = None
    bss: int | None = None
    output_check: str | None = None
    stack: int | None = None
    arena: int | None = None
    energy_uj: float | None = None  # the median µJ of one inference (a run with --power)
    # what hpx validate found for the cell's data set (validation.data): over its outputs,
    # the lowest top-1 agreement with the host, the lowest device top-1 accuracy against the
    # labels and the largest share of output elements that differ from the host
    top1_agreement: float | None = None
    accuracy_top1: float | None = None
    differing_share: float | None = None

    @property
    def flash(self) -> int | None:
        """Bytes the image keeps in non-volatile memory: code, read-only and initial data."""
        return None if self.text is None else self.text + (self.data or 0)

    @property
    def ram(self) -> int | None:
        """Bytes of RAM the image reserves statically: data and bss."""
        return None if self.bss is None else self.bss + (self.data or 0)


def read_numbers(bundle: Path) -> CellNumbers | None:
    """The numbers of a result or build bundle, or None when it does not verify."""
    try:
        if is_build_bundle(bundle):
            sizes = read_build_bundle(bundle).build.get("sizes")
            return CellNumbers(text=_size(sizes, "text"), data=_size(sizes, "data"),
                               bss=_size(sizes, "bss"))
        view = load_view(bundle)
    except HpxError:
        return None
    sizes = view.sizes
    return CellNumbers(
        units=view.units or None, whole=view.whole_median, layer_sum=view.layer_sum,
        layers=len(view.layers), validity=view.validity, text=_size(sizes, "text"),
        data=_size(sizes, "data"), bss=_size(sizes, "bss"),
        output_check=_output_check(view.outputs), stack=_stack(view.memory),
        arena=_arena(view.memory), energy_uj=_energy(view.energy),
    )


ARENA = "arena"


def _stack(use: MemoryUse | None) -> int | None:
    return None if use is None else use.stack.used


def _arena(use: MemoryUse | None) -> int | None:
    """Bytes of the engine's ``arena`` in use (the name engines give their tensor arena)."""
    buffers = use.buffers if use is not None else ()
    return next((b.used for b in buffers if b.name == ARENA), None)


def with_validation(numbers: CellNumbers | None, bundle: Path | None) -> CellNumbers | None:
    """``numbers`` with the figures of the cell's validation bundle, when it has one that
    verifies."""
    from hpx_core.validation.bundle import read_validation

    if bundle is None:
        return numbers
    try:
        outputs = read_validation(bundle)["outputs"]
    except HpxError:
        return numbers
    agreement = [o["top1_agreement"] for o in outputs if "top1_agreement" in o]
    accuracy = [o["accuracy"]["device_top1"] for o in outputs if o.get("accuracy")]
    return attrs.evolve(numbers or CellNumbers(),
                        top1_agreement=min(agreement) if agreement else None,
                        accuracy_top1=min(accuracy) if accuracy else None,
                        differing_share=max(o["differing_share"] for o in outputs))


def _energy(energy: Mapping[str, Any] | None) -> float | None:
    found = (energy or {}).get("median_uj")
    return float(found) if isinstance(found, int | float) else None


def _size(sizes: Any, key: str) -> int | None:
    value = sizes.get(key) if isinstance(sizes, Mapping) else None
    return value if isinstance(value, int) else None


def _output_check(outputs: Outputs | None) -> str | None:
    if outputs is None:
        return None
    if isinstance(outputs, OutputsUnchecked):
        return "not checked" if outputs.known else None
    if outputs.exact:
        return "exact"
    largest = max((t.max_abs_diff or 0.0 for t in outputs.tensors), default=0.0)
    return f"{'within tolerance' if outputs.passed else 'DIFFER'}: max abs diff {largest:g}"

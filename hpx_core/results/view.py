"""A result bundle as typed, read-only data, loaded only after it matched its manifest.

Every reader of bundle numbers (compare, reports, ``hpx results show``) goes through
:func:`load_view`, so nothing is ever shown or compared from a bundle that was changed after
hpx wrote it, and every value read has the type the bundle schema promises.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import get_board
from hpx_core.errors import HpxError
from hpx_core.results import verify_bundle
from hpx_core.results.bundle_schema import SCHEMAS
from hpx_core.results.check_view import LayerCheckView
from hpx_core.results.memory import MemoryUse, memory_from_json
from hpx_core.results.outputs import Outputs, outputs_from_json


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


@attrs.frozen
class LayerView:
    """One layer's corrected counts (per iteration) as the bundle recorded them."""

    index: int
    name: str
    op: str
    calls: int
    median: int
    samples: tuple[int, ...] = attrs.field(converter=_ints)
    events: Mapping[str, int] = attrs.field(factory=dict)  # PMU boards: median per event

    @property
    def spread(self) -> int:
        """Max minus min over the iterations: the run-to-run noise of this layer."""
        return max(self.samples) - min(self.samples) if self.samples else 0


@attrs.frozen
class KernelCheck:
    """One finding about what the image linked (``hpx_verify_symbols``), checked before it ran:
    a fatal one that failed would have stopped the run, so a report shows what was proven."""

    check: str
    passed: bool
    detail: str
    fatal: bool = True


def _kernel_checks(extra: Mapping[str, Any]) -> tuple[KernelCheck, ...]:
    found = extra.get("kernel_checks")
    if not isinstance(found, list):
        return ()
    return tuple(KernelCheck(str(k.get("check", "")), bool(k.get("passed")),
                             str(k.get("detail", "")), bool(k.get("fatal", True)))
                 for k in found if isinstance(k, Mapping))


@attrs.frozen
class BundleView:
    """What a verified bundle says: identity, numbers, sizes, provenance and validity."""

    path: Path
    status: str
    validity: str
    issues: tuple[str, ...]
    board: str
    engine: str
    backend: str | None
    engine_library: str | None
    toolchain: str | None
    model_sha256: str | None
    units: str
    emulated: bool
    whole_median: int | None
    whole_samples: tuple[int, ...] = attrs.field(converter=_ints)
    layers: tuple[LayerView, ...]
    sizes: Mapping[str, int] = attrs.field(factory=dict)
    provenance: Mapping[str, Any] = attrs.field(factory=dict)
    error: str | None = None
    layer_check: LayerCheckView | None = None  # --check-layers: every layer against the host
    outputs: Outputs | None = None  # against the host's, or why not (None: a failed run)
    pass_documents: Mapping[str, Any] = attrs.field(factory=dict)  # installed passes' files
    memory: MemoryUse | None = None  # the memory pass: stack, arenas, heap, per layer
    kernel_checks: tuple[KernelCheck, ...] = ()  # what the linked image was checked for
    engine_code: str | None = None  # SHA-256 of the engine's shipped files and glue
    energy: Mapping[str, Any] | None = None  # the power pass: µJ per inference and per layer

    @property
    def energy_nj(self) -> int | None:
        """The median energy of one inference in nJ (what a comparison gates), None without
        a measured one."""
        found = (self.energy or {}).get("median_uj")
        return None if found is None else round(float(found) * 1000)

    @property
    def energy_spread_nj(self) -> int:
        return round(float((self.energy or {}).get("spread_uj", 0.0)) * 1000)

    @property
    def layer_sum(self) -> int | None:
        return sum(layer.median for layer in self.layers) if self.layers else None

    @property
    def layer_sum_spread(self) -> int:
        """Spread of the per-iteration sums of all layers."""
        n = min((len(layer.samples) for layer in self.layers), default=0)
        sums = [sum(layer.samples[i] for layer in self.layers) for i in range(n)]
        return max(sums) - min(sums) if sums else 0

    @property
    def whole_spread(self) -> int:
        s = self.whole_samples
        return max(s) - min(s) if s else 0

    @property
    def ops(self) -> tuple[str, ...]:
        return tuple(layer.op for layer in self.layers)

    @property
    def label(self) -> str:
        """Short human name: board, engine and backend."""
        engine = f"{self.engine}/{self.backend}" if self.backend else self.engine
        return f"{self.board} {engine}"


def _library(extra: Mapping[str, Any]) -> str | None:
    """Bundles written before the identity named the libraries: the engine's own word."""
    library = extra.get("engine_library")
    if isinstance(library, Mapping):
        return str(library.get("name") or library.get("key") or "") or None
    return None if library is None else str(library)


def _backend(config: Mapping[str, Any], extra: Mapping[str, Any], engine: str) -> str | None:
    """Bundles written before the identity named the backend: wherever the writer recorded it
    (config, or the engine's extra).

    Failing those, the engine library's name ``<engine>_<backend>-<key>`` says it.
    """
    section = config.get("engine")
    candidates = [
        section.get("backend") if isinstance(section, Mapping) else None,
        config.get("backend"),
        extra.get("backend"),
    ]
    found = next((str(c) for c in candidates if c), None)
    library = _library(extra)
    if found is None and library and library.startswith(f"{engine}_") and "-" in library:
        found = library[len(engine) + 1 :].rsplit("-", 1)[0] or None
    return found


def _emulated(board: str, units: str) -> bool:
    try:
        return get_board(board).emulated
    except HpxError:
        return "emulated" in units


def _layers(measurement: Mapping[str, Any]) -> tuple[LayerView, ...]:
    return tuple(
        LayerView(
            index=int(layer["index"]),
            name=str(layer["name"]),
            op=str(layer["op"]),
            calls=int(layer.get("calls", 1)),
            median=int(layer["median"]),
            samples=layer.get("samples", [layer["median"]]),
            events={str(k): int(v) for k, v in (layer.get("events") or {}).items()},
        )
        for layer in sorted(measurement.get("layers", []), key=lambda item: int(item["index"]))
    )


def load_view(path: Path) -> BundleView:
    """Verify ``path`` (manifest and shapes), then read it; ResultsError if it fails either."""
    check = verify_bundle(path)
    documents: Mapping[str, Any] = check.documents
    summary = documents["summary.json"]
    identity = summary["identity"]
    measurement = summary["measurement"] or {}
    whole = measurement.get("whole_inference") or {}
    extra = summary.get("extra") or {}
    error = summary.get("error")
    return BundleView(
        path=path,
        status=check.status,
        validity=str(summary["validity"]),
        issues=tuple(summary["issues"]),
        board=identity["board"],
        engine=identity["engine"],
        backend=identity.get("backend")
        or _backend(documents.get("config.json", {}), extra, identity["engine"]),
        engine_library=", ".join(identity.get("engine_libraries") or ()) or _library(extra),
        toolchain=identity.get("toolchain"),
        model_sha256=identity.get("model_sha256"),
        units=str(measurement.get("units") or identity.get("counter_units", "")),
        emulated=_emulated(identity["board"], str(identity.get("counter_units", ""))),
        whole_median=whole.get("median"),
        whole_samples=whole.get("samples", []),
        layers=_layers(measurement),
        sizes=dict(documents.get("build.json", {}).get("sizes") or {}),
        provenance=documents.get("provenance.json", {}),
        error=None if not error else f"{error['type']}: {error['message']}",
        layer_check=LayerCheckView.from_json(summary["layer_check"])
        if summary.get("layer_check") else None,
        outputs=outputs_from_json(summary.get("outputs"), check.status == "complete"),
        pass_documents={n: d for n, d in documents.items() if n not in SCHEMAS},
        memory=memory_from_json(summary.get("memory")),
        energy=summary.get("energy"),
        kernel_checks=_kernel_checks(extra),
        engine_code=identity.get("engine_code"),
    )

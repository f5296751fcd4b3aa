"""Two verified bundles side by side: dimensions, totals and per-layer deltas.

Per-layer deltas pair layers by position, and only when both runs executed the same op
sequence; otherwise the comparison says where the sequences diverge instead of pairing
unrelated layers. Differences in board, engine, backend, toolchain or units are kept as
dimensions and always shown.

Memory is compared as its own totals, named as a policy names them (``memory.stack``,
``memory.<buffer>``, ``memory.heap``, ``memory.region.<region>``), so that a gate on bytes
reads like a gate on counts and never mixes with them.
"""

from __future__ import annotations

import attrs

from hpx_core.contract import MatchManifest, Region
from hpx_core.errors import ConfigError, ResultsError
from hpx_core.results.check_view import first_disagreement, summary_word
from hpx_core.results.memory import MemoryUse
from hpx_core.results.outputs import outputs_word, unchecked_note
from hpx_core.results.view import BundleView, LayerView

MEMORY = "memory"
ENERGY = "energy per inference"
"""The median energy of one inference (nJ), a total when either run measured it (--power)."""


def _pct(base: int | None, delta: int | None) -> float | None:
    if base is None or delta is None or base == 0:
        return None
    return 100.0 * delta / base


@attrs.frozen
class Dimension:
    """One property of the runs (board, engine, ...); ``differs`` when the two disagree."""

    name: str
    base: str
    candidate: str

    @property
    def differs(self) -> bool:
        return self.base != self.candidate


@attrs.frozen
class TotalDelta:
    """A whole-run number in both bundles (None when a bundle lacks it)."""

    name: str
    unit: str
    base: int | None
    candidate: int | None
    base_spread: int = 0
    candidate_spread: int = 0

    @property
    def delta(self) -> int | None:
        return None if self.base is None or self.candidate is None else self.candidate - self.base

    @property
    def pct(self) -> float | None:
        return _pct(self.base, self.delta)


@attrs.frozen
class LayerDelta:
    """A pair of matched layers."""

    base: LayerView
    candidate: LayerView
    base_share: float  # of the base's layer sum, percent

    @property
    def delta(self) -> int:
        return self.candidate.median - self.base.median

    @property
    def pct(self) -> float | None:
        return _pct(self.base.median, self.delta)


@attrs.frozen
class Divergence:
    """Where the two op sequences stop agreeing."""

    index: int
    base_layer: LayerView | None
    candidate_layer: LayerView | None
    base_count: int
    candidate_count: int

    @property
    def message(self) -> str:
        def side(layer: LayerView | None) -> str:
            return (
                "no layer (its sequence ended)"
                if layer is None
                else (f"{layer.name!r} ({layer.op})")
            )

        return (
            f"the op sequences diverge at layer {self.index}: base has "
            f"{side(self.base_layer)}, candidate has {side(self.candidate_layer)} "
            f"(base {self.base_count} layers, candidate {self.candidate_count}); "
            "per-layer deltas need the same op sequence"
        )


@attrs.frozen
class AlignedRow:
    """One row of two programs laid side by side: a matched pair, or a layer of one side."""

    base: LayerView | None
    candidate: LayerView | None
    region: str | None = None

    @property
    def delta(self) -> int | None:
        if self.base is None or self.candidate is None:
            return None
        return self.candidate.median - self.base.median


@attrs.frozen
class Comparison:
    """Everything ``hpx compare`` shows, writes and judges."""

    base: BundleView
    candidate: BundleView
    dimensions: tuple[Dimension, ...]
    totals: tuple[TotalDelta, ...]
    layers: tuple[LayerDelta, ...]  # sorted by impact: largest |delta| first
    divergence: Divergence | None
    notes: tuple[str, ...] = ()
    aligned: tuple[AlignedRow, ...] = ()  # program order, when a manifest pairs the layers
    memory: tuple[TotalDelta, ...] = ()  # bytes the memory pass measured (memory_deltas)

    @property
    def differing(self) -> tuple[Dimension, ...]:
        return tuple(d for d in self.dimensions if d.differs)

    def total(self, name: str) -> TotalDelta:
        return next(t for t in self.totals if t.name == name)

    def memory_delta(self, name: str) -> TotalDelta | None:
        """The memory figure ``name`` (``memory.stack``, ...), None when neither run has it."""
        return next((t for t in self.memory if t.name == name), None)


def _memory_figures(use: MemoryUse | None) -> dict[str, int | None]:
    """One run's memory figures by their names: the stack's deepest point, each buffer's bytes
    in use, the heap taken (when an allocator is linked) and each region's bytes the image
    takes (its code, data and bss, with the stack's reserve)."""
    if use is None:
        return {}
    figures: dict[str, int | None] = {f"{MEMORY}.stack": use.stack.used}
    figures |= {f"{MEMORY}.{b.name}": b.used for b in use.buffers}
    if use.heap_in_inference is not None:
        figures[f"{MEMORY}.heap"] = use.heap
    figures |= {f"{MEMORY}.region.{r.name}": r.used for r in use.regions}
    return figures


def memory_deltas(base: BundleView, cand: BundleView) -> tuple[TotalDelta, ...]:
    """Every memory figure either run measured, in both (None where one lacks it): the stack
    first, then the buffers and the heap, then the regions."""
    b, c = _memory_figures(base.memory), _memory_figures(cand.memory)
    names = list(b) + [n for n in c if n not in b]
    order = sorted(names, key=lambda n: (n != f"{MEMORY}.stack",
                                         n.startswith(f"{MEMORY}.region."), names.index(n)))
    return tuple(TotalDelta(n, "bytes", b.get(n), c.get(n)) for n in order)


def _require_complete(view: BundleView, role: str) -> None:
    if view.status != "complete" or view.whole_median is None:
        raise ResultsError(
            f"the {role} bundle {view.path} is a failed run ({view.error or view.status})",
            "compare two complete runs; the failed bundle says what went wrong",
        )


def _check_models(base: BundleView, cand: BundleView, manifest: MatchManifest | None) -> None:
    if manifest is None:
        if base.model_sha256 != cand.model_sha256:
            raise ResultsError(
                f"the bundles profile different models (base sha256 {base.model_sha256}, "
                f"candidate sha256 {cand.model_sha256})",
                "compare runs of one model; to compare two models on purpose, pass "
                "--manifest FILE naming both SHA-256s (docs/compare.md)",
            )
        return
    expected = (manifest.base_model_sha256, manifest.candidate_model_sha256)
    if (base.model_sha256, cand.model_sha256) != expected:
        raise ConfigError(
            f"the match manifest is for models {expected[0]} -> {expected[1]}, but the bundles "
            f"hold {base.model_sha256} -> {cand.model_sha256}",
            "write a match manifest for these two models",
        )


def _dimensions(base: BundleView, cand: BundleView) -> tuple[Dimension, ...]:
    def value(v: object) -> str:
        return "-" if v is None else str(v)

    def hpx(view: BundleView) -> object:
        return view.provenance.get("hpx_core")

    rows = [
        ("board", base.board, cand.board),
        ("engine", base.engine, cand.engine),
        ("backend", base.backend, cand.backend),
        ("engine library", base.engine_library, cand.engine_library),
        ("engine code", _short(base.engine_code), _short(cand.engine_code)),
        ("toolchain", base.toolchain, cand.toolchain),
        ("counter units", base.units, cand.units),
        ("model sha256", base.model_sha256, cand.model_sha256),
        ("validity", base.validity, cand.validity),
        ("outputs", outputs_word(base.outputs), outputs_word(cand.outputs)),
        ("layer check", summary_word(base.layer_check), summary_word(cand.layer_check)),
        ("hpx", hpx(base), hpx(cand)),
    ]
    return tuple(Dimension(name, value(b), value(c)) for name, b, c in rows)


def _short(digest: str | None) -> str | None:
    """A digest as a table shows it (the bundle's identity holds all of it)."""
    return None if digest is None else f"sha256:{digest[:16]}"


def _totals(base: BundleView, cand: BundleView) -> tuple[TotalDelta, ...]:
    totals = [
        TotalDelta(
            "whole inference",
            base.units,
            base.whole_median,
            cand.whole_median,
            base.whole_spread,
            cand.whole_spread,
        ),
        TotalDelta(
            "layer sum",
            base.units,
            base.layer_sum,
            cand.layer_sum,
            base.layer_sum_spread,
            cand.layer_sum_spread,
        ),
    ]
    for key in sorted(set(base.sizes) | set(cand.sizes)):
        totals.append(TotalDelta(f"{key} bytes", "bytes", base.sizes.get(key), cand.sizes.get(key)))
    if base.energy_nj is not None or cand.energy_nj is not None:
        totals.append(TotalDelta(ENERGY, "nJ", base.energy_nj, cand.energy_nj,
                                 base.energy_spread_nj, cand.energy_spread_nj))
    return tuple(totals)


def find_divergence(base: BundleView, cand: BundleView) -> Divergence | None:
    """The first layer index where the op sequences differ, or None if they are the same."""
    if base.ops == cand.ops:
        return None
    index = next(
        (i for i, (a, b) in enumerate(zip(base.ops, cand.ops, strict=False)) if a != b),
        min(len(base.ops), len(cand.ops)),
    )

    def at(view: BundleView) -> LayerView | None:
        return view.layers[index] if index < len(view.layers) else None

    return Divergence(index, at(base), at(cand), len(base.layers), len(cand.layers))


def _pairs(
    base: BundleView, cand: BundleView, manifest: MatchManifest | None
) -> list[tuple[LayerView, LayerView]]:
    if manifest is not None and manifest.layers:
        by_base = {layer.index: layer for layer in base.layers}
        by_cand = {layer.index: layer for layer in cand.layers}
        missing = [p for p in manifest.layers if p[0] not in by_base or p[1] not in by_cand]
        if missing:
            raise ConfigError(
                f"the match manifest pairs layers the bundles do not have: {missing}",
                "use layer indices from `hpx results show`",
            )
        return [(by_base[a], by_cand[b]) for a, b in manifest.layers]
    return list(zip(base.layers, cand.layers, strict=True))


def _by_index(view: BundleView, indices: tuple[int, ...], what: str) -> list[LayerView]:
    by_index = {layer.index: layer for layer in view.layers}
    missing = [i for i in indices if i not in by_index]
    if missing:
        raise ConfigError(
            f"the match manifest's {what} names layers the bundle does not have: {missing}",
            "use layer indices from `hpx results show`",
        )
    return [by_index[i] for i in indices]


def _region_total(base: BundleView, cand: BundleView, region: Region) -> TotalDelta:
    b = _by_index(base, region.base, f"region {region.name!r}")
    c = _by_index(cand, region.candidate, f"region {region.name!r}")
    return TotalDelta(f"{region.name} region", base.units, sum(x.median for x in b),
                      sum(x.median for x in c), sum(x.spread for x in b), sum(x.spread for x in c))


def _aligned(
    base: BundleView, cand: BundleView, manifest: MatchManifest
) -> tuple[AlignedRow, ...]:
    """Both programs in order: each pair, preceded by the unpaired layers before it."""
    region_of = {("b", i): r.name for r in manifest.regions for i in r.base}
    region_of |= {("c", i): r.name for r in manifest.regions for i in r.candidate}
    by_b = {x.index: x for x in base.layers}
    by_c = {x.index: x for x in cand.layers}
    pairs = sorted(manifest.layers)
    paired_b, paired_c = {a for a, _ in pairs}, {b for _, b in pairs}
    end = (max(by_b, default=0) + 1, max(by_c, default=0) + 1)
    rows: list[AlignedRow] = []
    bi = ci = 0
    for a, b in [*pairs, end]:
        rows += [AlignedRow(by_b[i], None, region_of.get(("b", i)))
                 for i in range(bi, a) if i in by_b and i not in paired_b]
        rows += [AlignedRow(None, by_c[i], region_of.get(("c", i)))
                 for i in range(ci, b) if i in by_c and i not in paired_c]
        if (a, b) != end:
            rows.append(AlignedRow(by_b[a], by_c[b]))
        bi, ci = a + 1, b + 1
    return tuple(rows)


def compare(
    base: BundleView, candidate: BundleView, manifest: MatchManifest | None = None
) -> Comparison:
    """Compare two verified bundles (see :func:`hpx_core.results.view.load_view`)."""
    _require_complete(base, "base")
    _require_complete(candidate, "candidate")
    _check_models(base, candidate, manifest)
    divergence = find_divergence(base, candidate)
    explicit = manifest is not None and bool(manifest.layers)
    pairs = _pairs(base, candidate, manifest) if explicit or divergence is None else []
    total = base.layer_sum or 0
    layers = sorted(
        (LayerDelta(b, c, 100.0 * b.median / total if total else 0.0) for b, c in pairs),
        key=lambda d: (-abs(d.delta), d.base.index),
    )
    notes = []
    if base.units != candidate.units:
        notes.append(
            f"the runs count different things ({base.units} vs {candidate.units}): "
            "their deltas are not like for like"
        )
    if explicit:
        notes.append("layers paired by the match manifest, not by op sequence")
    notes += [n for n in (unchecked_note("base", base.outputs),
                          unchecked_note("candidate", candidate.outputs)) if n]
    disagree = None if explicit else first_disagreement(base.layer_check, candidate.layer_check)
    if disagree is not None:
        name = base.layer_check.names.get(disagree, "") if base.layer_check else ""
        notes.append(f"the runs disagree numerically: layer {disagree} {name} has different "
                     "outputs on the two devices (and so may every later layer)")
    regions = tuple(_region_total(base, candidate, r) for r in manifest.regions) if manifest else ()
    return Comparison(
        base=base,
        candidate=candidate,
        dimensions=_dimensions(base, candidate),
        totals=_totals(base, candidate) + regions,
        layers=tuple(layers),
        divergence=None if explicit else divergence,
        notes=tuple(notes),
        aligned=_aligned(base, candidate, manifest) if manifest and explicit else (),
        memory=memory_deltas(base, candidate),
    )

"""A bundle's layer check as read-only data, and the words every reader shows for it.

``hpx profile``, ``hpx results show``, the HTML report, ``hpx compare`` and the policy all read
the ``layer_check`` section of ``summary.json`` through :class:`LayerCheckView`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from hpx_core.results.layer_check import LayerCheck

DIVERGED = ("different", "inherited")


@attrs.frozen
class LayerCheckView:
    """What the layer check found: a status per layer and the full comparisons."""

    mode: str
    reference: str
    statuses: Mapping[int, str]
    names: Mapping[int, str]
    first_divergent: int | None
    cause: str | None
    stopped: str | None
    note: str | None
    tensors: tuple[Mapping[str, Any], ...]
    skipped: int = 0
    device_crcs: Mapping[int, tuple[int, ...]] = attrs.field(factory=dict)

    @property
    def exact(self) -> bool:
        return bool(self.statuses) and all(s == "exact" for s in self.statuses.values())

    def count(self, status: str) -> int:
        return sum(s == status for s in self.statuses.values())

    def first_output(self) -> Mapping[str, Any] | None:
        """The full comparison of the first divergent layer's first output, if it was sent."""
        return next((t for t in self.tensors if t["layer"] == self.first_divergent
                     and t["role"] == "out"), None)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LayerCheckView:
        layers = data.get("layers") or []
        return cls(
            mode=str(data.get("mode", "")), reference=str(data.get("reference") or ""),
            statuses={int(x["index"]): str(x["status"]) for x in layers},
            names={int(x["index"]): str(x["name"]) for x in layers},
            first_divergent=data.get("first_divergent"), cause=data.get("cause"),
            stopped=data.get("stopped"), note=data.get("note"),
            tensors=tuple(data.get("tensors") or ()), skipped=int(data.get("skipped_tensors", 0)),
            device_crcs={int(x["index"]): tuple(int(d["crc"]) for d in x.get("device") or ())
                         for x in layers})

    @classmethod
    def of(cls, check: LayerCheck) -> LayerCheckView:
        return cls.from_json(check.to_json())


def _difference(t: Mapping[str, Any]) -> str:
    real = "" if t.get("max_diff") is None else f" ({t['max_diff']:.6g} dequantized)"
    snr = "" if t.get("snr_db") is None else f", SNR {t['snr_db']:.1f} dB"
    where = ",".join(str(i) for i in t.get("position", []))
    steps = t["max_diff_steps"]
    return (f"{t['mismatched']:,} of {t['count']:,} elements differ, largest by "
            f"{steps} step{'' if steps == 1 else 's'}{real}{snr}, at [{where}]")


def divergence_text(view: LayerCheckView) -> str | None:
    """The first divergent layer in one sentence (None when there is none)."""
    first = view.first_divergent
    if first is None:
        return None
    text = f"first divergent layer {first} {view.names.get(first, '')}".rstrip()
    out = view.first_output()
    if out is not None:
        text += f": {_difference(out)}"
    if view.cause:
        text += f"; {view.cause}"
    return text


def layer_check_line(check: LayerCheck | LayerCheckView) -> str:
    """One line for the console: all exact, or where the device first disagrees."""
    view = check if isinstance(check, LayerCheckView) else LayerCheckView.of(check)
    if view.note:
        return f"layer check: {view.note}"
    counts = ", ".join(f"{view.count(s)} {s}" for s in ("exact", "different", "inherited",
                                                         "not checked") if view.count(s))
    text = f"layer check against the host ({counts or 'no layers'})"
    divergence = divergence_text(view)
    if divergence:
        text += f"; {divergence}"
    if view.stopped:
        text += f"; {view.stopped}"
    return text


def summary_word(view: LayerCheckView | None) -> str:
    """The layer check in a few words, for a table cell."""
    if view is None:
        return "-"
    if view.first_divergent is not None:
        return f"diverges at layer {view.first_divergent}"
    return "exact" if view.exact else (view.note or "not checked")


def first_disagreement(base: LayerCheckView | None, candidate: LayerCheckView | None
                       ) -> int | None:
    """The first layer whose device outputs differ between two checked runs (None: none)."""
    if base is None or candidate is None:
        return None
    shared = sorted(set(base.device_crcs) & set(candidate.device_crcs))
    return next((i for i in shared if base.device_crcs[i] != candidate.device_crcs[i]), None)

"""The energy a run measured, as the bundle keeps it and the console says it.

``summary.json`` gets an ``energy`` section: each whole inference's µJ with their median and
spread, the mean power inside the windows and the idle floor between them, each layer's µJ
(median and every instrumented inference's), the instrument and what the probe did meanwhile.
The windows' own samples go beside it in ``energy_windows.npz`` (current and voltage as
float32, the board's state as uint8, each window's first sample and length, the sample rate),
so a reader can integrate them again without the rest of the trace.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from hpx_core.power.trace import PowerTrace
from hpx_core.power.windows import PassEnergy, active_windows

SECTION = "energy"
WINDOWS_FILE = "energy_windows.npz"
PROBE_NOTE = "let go of the part during the windows (attached again after them, no reset)"


def energy_document(energy: PassEnergy, trace: PowerTrace,
                    setup: Mapping[str, Any]) -> dict[str, Any]:
    """The ``energy`` section; ``setup``: the instrument, its inputs, rate and supply."""
    whole = energy.inference
    return {
        "per_inference_uj": [round(x, 4) for x in whole.per_inference_uj],
        "median_uj": round(whole.median_uj, 4),
        "spread_uj": round(whole.spread_uj, 4),
        "mean_power_mw": round(whole.mean_power_mw, 4),
        "idle_floor_mw": None if whole.idle_floor_mw is None else round(whole.idle_floor_mw, 4),
        "window_ms": [round(s * 1e3, 4) for s in whole.window_seconds],
        "layers": [{"index": x.index, "median_uj": round(x.median_uj, 4),
                    "samples_uj": [round(v, 4) for v in x.samples_uj]} for x in energy.layers],
        "sample_rate": trace.sample_rate,
        "samples": len(trace),
        "probe": PROBE_NOTE,
        **dict(setup),
    }


def windows_file(trace: PowerTrace) -> bytes:
    """Every window's samples, compressed (:data:`WINDOWS_FILE`)."""
    windows = active_windows(trace)
    parts = [slice(w.start, w.stop) for w in windows]
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer, sample_rate=np.int64(trace.sample_rate),
        starts=np.array([w.start for w in windows], np.int64),
        lengths=np.array([w.stop - w.start for w in windows], np.int64),
        current=np.concatenate([trace.current[p] for p in parts]).astype(np.float32),
        voltage=np.concatenate([trace.voltage[p] for p in parts]).astype(np.float32),
        state=np.concatenate([trace.state[p] for p in parts]).astype(np.uint8))
    return buffer.getvalue()


def energy_lines(energy: PassEnergy) -> tuple[str, ...]:
    """What ``hpx profile`` prints after its table."""
    whole = energy.inference
    floor = "-" if whole.idle_floor_mw is None else f"{whole.idle_floor_mw:.3f} mW"
    return (f"energy: {whole.median_uj:.3f} µJ per inference (median of "
            f"{len(whole.per_inference_uj)}, spread {whole.spread_uj:.3f} µJ), mean "
            f"{whole.mean_power_mw:.3f} mW, idle floor {floor}; probe {PROBE_NOTE}",)

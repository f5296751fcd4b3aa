"""The ETDump the firmware sent: into the bundle, described for ExecuTorch's own devtools.

The device writes ExecuTorch's ETDump with the runtime's own ``ETDumpGen`` in one uncounted
pass (``glue/hpx_et_etdump.cpp``); with ``--check-layers`` every tensor the kernels log streams
out beside it as the debug buffer. hpx has no host reference for a ``.pte`` (the graph that
would compute one is in the user's ETRecord, not in the program), so it compares nothing
itself: the files are what ExecuTorch's ``Inspector`` reads, with the user's ETRecord for
``calculate_numeric_gap``, and the bundle's layer check says exactly that.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from hpx_core.sdk.models import ModelInfo
from hpx_core.sdk.results import Capture
from hpx_executorch.firmware import DEBUG_FILE, ETDUMP_FILE, INPUT_DIVISOR, reference_codes
from hpx_executorch.settings import Settings

LAYER_CHECK_NOTE = (
    f"compared by ExecuTorch's Inspector; hpx wrote {ETDUMP_FILE} and {DEBUG_FILE} (every "
    "layer's outputs on the device): read them with Inspector(etdump_path, debug_buffer_path, "
    "etrecord=<the program's ETRecord>) and calculate_numeric_gap()"
)


def etdump_files(capture: Capture) -> dict[str, bytes]:
    """The ETDump and its debug buffer, when the firmware sent them whole."""
    sent = capture.files()
    return {name: sent[name] for name in (ETDUMP_FILE, DEBUG_FILE) if name in sent}


def input_files(model: ModelInfo) -> dict[str, bytes]:
    """The inputs the device was fed, as ``.npy`` in logical (NCHW) order (``input<i>.npy``):
    what the ETRecord's representative inputs must be for ``calculate_numeric_gap``."""
    files = {}
    for index, tensor in enumerate(model.inputs):
        codes = np.array(reference_codes(tensor.shape)).reshape(tensor.shape)
        values: np.ndarray[Any, Any] = (codes.astype(np.int8) if tensor.dtype == "int8" else
                                        (codes / INPUT_DIVISOR).astype(np.float32))
        buffer = io.BytesIO()
        np.save(buffer, values, allow_pickle=False)
        files[f"input{index}.npy"] = buffer.getvalue()
    return files


def etdump_record(settings: Settings, files: dict[str, bytes], units: str) -> dict[str, Any]:
    """The bundle's ``extra.etdump``: what was recorded, where, and how to read it."""
    tensors = settings.etdump == "tensors"
    record: dict[str, Any] = {
        "file": ETDUMP_FILE if ETDUMP_FILE in files else None,
        "bytes": len(files.get(ETDUMP_FILE, b"")),
        "records": "events and every layer's outputs" if tensors else "events",
        "pass": "one uncounted inference after the measured ones, same input",
        "time_base": f"{units} of hpx's counter since start-up (et_pal_current_ticks)",
        "buffer_size": settings.etdump_buffer_size,
        "inputs": sorted(name for name in files if name.startswith("input")),
    }
    if tensors:
        record["debug_buffer"] = DEBUG_FILE if DEBUG_FILE in files else None
        record["debug_bytes"] = len(files.get(DEBUG_FILE, b""))
    debug = f", debug_buffer_path='{DEBUG_FILE}'" if tensors else ""
    record["read_with"] = (f"Inspector(etdump_path='{ETDUMP_FILE}'{debug}, etrecord=<ETRecord "
                           "or None>, source_time_scale='cycles', target_time_scale='cycles')")
    return record


def layer_check_note(settings: Settings, files: dict[str, bytes]) -> str | None:
    """The layer check's sentence when the device's layer outputs reached the bundle."""
    if settings.etdump == "tensors" and ETDUMP_FILE in files and DEBUG_FILE in files:
        return LAYER_CHECK_NOTE
    return None

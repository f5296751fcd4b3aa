"""Model analysis: what is inside a ``.tflite`` or ExecuTorch ``.pte`` file.

:func:`load_model` decides the format from the FlatBuffers file identifier (bytes 4..8), not
from the file name, so a renamed file is still read correctly and a wrong one is refused.
Importing the package (the contract does) loads no reader.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from hpx_core.errors import HpxError, ModelError
from hpx_core.models.info import (
    CORE_FORMATS,
    ExecutionPlan,
    Instruction,
    ModelFormat,
    ModelInfo,
    Operator,
    OperatorRef,
    PteProgram,
    Quantization,
    TensorInfo,
)
from hpx_core.user_files import read_regular

MAX_MODEL_BYTES = 256 << 20
"""The largest model file hpx reads: many times any microcontroller's flash, so only a file
that is not a model (or a path to a device) is refused by it."""
_PTE_IDENTIFIER = re.compile(rb"ET\d\d")

__all__ = [
    "CORE_FORMATS",
    "OTHER_FORMAT",
    "ExecutionPlan",
    "Instruction",
    "ModelFormat",
    "ModelInfo",
    "Operator",
    "OperatorRef",
    "PteProgram",
    "Quantization",
    "TensorInfo",
    "detect_format",
    "load_model",
    "model_format",
    "read_model_bytes",
]


def detect_format(data: bytes, name: str = "model") -> ModelFormat:
    """``tflite`` or ``pte`` from the file identifier; anything else is a ModelError."""
    if len(data) < 8:
        raise ModelError(
            f"{name}: {len(data)} bytes is too short to be a model",
            hint="the file is empty or truncated; check the path or re-export the model",
        )
    ident = data[4:8]
    if ident == b"TFL3":
        return "tflite"
    if _PTE_IDENTIFIER.fullmatch(ident):
        return "pte"
    raise ModelError(
        f"{name}: not a .tflite or .pte model (file identifier {ident!r} at byte 4)",
        hint="hpx reads .tflite flatbuffers (identifier TFL3) and .pte programs (identifier "
        "ET12), and installed engines read their own formats; check the path or re-export "
        "the model",
    )


OTHER_FORMAT = "other"


def model_format(path: Path | None) -> str | None:
    """``tflite`` or ``pte`` from a model file's identifier, ``other`` for any other readable
    file (a format an engine reads itself), None when there is no file to look at."""
    if path is None:
        return None
    try:
        head = read_regular(Path(path), limit=MAX_MODEL_BYTES, what="model file",
                            hint="")[:8]
    except HpxError:
        return None
    try:
        return detect_format(head, Path(path).name)
    except ModelError:
        return OTHER_FORMAT


def load_model(path: Path) -> ModelInfo:
    """Read and analyze one model file; the analysis a run kept of the same bytes comes from
    the hpx cache (:mod:`.analyses`)."""
    path = Path(path)
    if not path.exists():
        raise ModelError(
            f"model file not found: {path}",
            hint="check model.path; relative paths are resolved from the current directory",
        )
    data = read_regular(path, limit=MAX_MODEL_BYTES, what="model file",
                        hint="check that the path is a readable model file", error=ModelError)
    from hpx_core.models.analyses import kept_analysis

    sha256 = hashlib.sha256(data).hexdigest()
    return kept_analysis(sha256, path, lambda: read_model_bytes(data, path, sha256))


def read_model_bytes(data: bytes, path: Path, sha256: str | None = None) -> ModelInfo:
    """Analyze a model already in memory; ``path`` names it in records and messages."""
    # The readers load the flatbuffers schemas (hundreds of modules): only when reading.
    from hpx_core.models.pte_reader import read_pte
    from hpx_core.models.tflite_reader import read_tflite

    sha256 = sha256 or hashlib.sha256(data).hexdigest()
    if detect_format(data, path.name) == "tflite":
        return read_tflite(data, path, sha256)
    return read_pte(data, path, sha256)

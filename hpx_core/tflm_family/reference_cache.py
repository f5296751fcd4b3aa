"""The host reference outputs kept in the hpx cache, so a warm run does not interpret again.

An entry is named by the model's SHA-256, the inputs' SHA-256 and the interpreter's version: the
three things that decide the outputs. It is written to a temporary file and renamed, so a
reader sees a whole entry or none; an unreadable entry is computed again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from hpx_core.sources import cache_root

INTERPRETER = "tflite-micro"
FOLDER = "reference-outputs"


def interpreter_version() -> str:
    try:
        return version(INTERPRETER)
    except PackageNotFoundError:
        return "absent"


def entry_name(model_data: bytes, inputs: Sequence[bytes]) -> str:
    """``<model sha256>-<inputs sha256>-<interpreter version>``."""
    digest = hashlib.sha256()
    for data in inputs:
        digest.update(len(data).to_bytes(8, "little") + data)
    model = hashlib.sha256(model_data).hexdigest()
    return f"{model}-{digest.hexdigest()}-{interpreter_version()}.json"


def cached_outputs(model_data: bytes, inputs: Sequence[bytes],
                   compute: Callable[[], tuple[bytes, ...]]) -> tuple[bytes, ...]:
    """The outputs from the cache, or ``compute()``'s, stored for next time."""
    path = cache_root() / FOLDER / entry_name(model_data, inputs)
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        return tuple(base64.b64decode(item) for item in stored["outputs"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    outputs = compute()
    _store(path, outputs)
    return outputs


def _store(path: Path, outputs: tuple[bytes, ...]) -> None:
    doc = {"interpreter": interpreter_version(),
           "outputs": [base64.b64encode(item).decode() for item in outputs]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(doc, out)
        Path(temp).chmod(0o644)
        Path(temp).replace(path)
    except OSError:
        pass  # a cache that cannot be written only costs the next run the interpreter

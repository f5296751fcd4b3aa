"""The host reference outputs kept in the hpx cache, so a warm run does not interpret again.

An entry is named by the model's SHA-256, the inputs' SHA-256 and the interpreter's version: the
three things that decide the outputs. It is kept whole or not at all (:mod:`hpx_core.kept`); an
unreadable entry is computed again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version

from hpx_core.sdk.cache import KeptFolder

INTERPRETER = "tflite-micro"
OUTPUTS = KeptFolder("reference-outputs")


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
    return f"{model}-{digest.hexdigest()}-{interpreter_version()}"


def cached_outputs(model_data: bytes, inputs: Sequence[bytes],
                   compute: Callable[[], tuple[bytes, ...]]) -> tuple[bytes, ...]:
    """The outputs from the cache, or ``compute()``'s, stored for next time."""
    key = entry_name(model_data, inputs)
    kept = OUTPUTS.load_blobs(key)
    if kept is not None:
        return kept
    outputs = compute()
    OUTPUTS.store_blobs(key, outputs, interpreter=interpreter_version())
    return outputs

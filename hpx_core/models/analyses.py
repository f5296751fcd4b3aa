"""Model analyses kept in the hpx cache, so a warm run does not parse a model again.

Reading a model loads its format's schemas (for a ``.tflite``, the flatbuffers schema and
NumPy: about a tenth of a second before the first field is read). What a reader finds depends
only on the file's bytes and the reader's own code, so an analysis is kept under
``$HPX_CACHE_DIR/model-analyses``, named by the model's SHA-256 and the identity of the readers
that would be asked for it (:func:`hpx_core.reading.readers_identity`: their sources and
versions): an edited reader, another schema package or another plugin installed reads every
model again. The path a
model was read from is not part of an analysis; the caller's path is put back. The last few
analyses are also held in memory, so a process that asks the same readers twice (a matrix's
cells, the default engine's choice and the run) parses a model once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import cattrs

from hpx_core.kept import KeptFolder
from hpx_core.models.info import ModelInfo

ANALYSES = KeptFolder("model-analyses", keep=256)
HELD = 8  # analyses held in memory at once; the oldest goes first
_held: OrderedDict[str, ModelInfo] = OrderedDict()
_lock = threading.Lock()


def _converter() -> cattrs.Converter:
    converter = cattrs.Converter()
    converter.register_unstructure_hook(Path, str)
    converter.register_structure_hook(Path, lambda value, _: Path(value))
    return converter


_CONVERTER = _converter()


def _key(sha256: str, identity: str) -> str:
    return f"{sha256}-{identity}"


def kept_analysis(sha256: str, identity: str, path: Path,
                  analyze: Callable[[], ModelInfo]) -> ModelInfo:
    """The analysis of the model with ``sha256`` by the readers of ``identity`` from the
    cache, or ``analyze()``'s."""
    key = _key(sha256, identity)
    with _lock:
        found = _held.get(key)
    if found is None:
        found = _structured(ANALYSES.load(key), sha256) or analyze()
    with _lock:
        _held[key] = found
        _held.move_to_end(key)
        while len(_held) > HELD:
            _held.popitem(last=False)
    return attrs.evolve(found, path=path)


def keep_analysis(info: ModelInfo, identity: str) -> None:
    """Keep ``info`` for the next read of the same bytes by the readers of ``identity`` (unless
    it is kept already). A run calls this once it goes on with the model: a refused model or a
    checked config leaves the cache as it was."""
    if ANALYSES.path(_key(info.sha256, identity)).is_file():
        return
    analysis = _CONVERTER.unstructure(info)
    ANALYSES.store(_key(info.sha256, identity), {"sha256": info.sha256, "analysis": analysis})


def _structured(document: Any, sha256: str) -> ModelInfo | None:
    try:
        if document["sha256"] != sha256:
            return None
        return _CONVERTER.structure(document["analysis"], ModelInfo)
    except (KeyError, TypeError, ValueError, cattrs.BaseValidationError):
        return None  # absent or damaged: read the model again

"""Model analyses kept in the hpx cache, so a warm run does not parse a model again.

Reading a model loads the flatbuffers schemas and NumPy (about a tenth of a second before the
first field is read). What the readers find depends only on the file's bytes and the readers'
own code, so an analysis is kept under ``$HPX_CACHE_DIR/model-analyses``, named by the model's
SHA-256 and a digest of this package's sources and the schema package's version: an edited
reader or another ``tflite`` release reads every model again. The path a model was read from
is not part of an analysis; the caller's path is put back.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import attrs
import cattrs

from hpx_core.kept import KeptFolder
from hpx_core.models.info import CORE_FORMATS, ModelInfo

ANALYSES = KeptFolder("model-analyses", keep=256)
SCHEMAS = "tflite"  # the package of the TFLite flatbuffers schema the reader uses


def _converter() -> cattrs.Converter:
    converter = cattrs.Converter()
    converter.register_unstructure_hook(Path, str)
    converter.register_structure_hook(Path, lambda value, _: Path(value))
    return converter


_CONVERTER = _converter()


@functools.cache
def reader_identity() -> str:
    """A digest of every reader's source and the schema package's version."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    try:
        digest.update(version(SCHEMAS).encode())
    except PackageNotFoundError:
        digest.update(b"absent")
    return digest.hexdigest()[:16]


def _key(sha256: str) -> str:
    return f"{sha256}-{reader_identity()}"


def kept_analysis(sha256: str, path: Path, analyze: Callable[[], ModelInfo]) -> ModelInfo:
    """The analysis of the model with ``sha256`` from the cache, or ``analyze()``'s."""
    found = _structured(ANALYSES.load(_key(sha256)), sha256)
    return attrs.evolve(found, path=path) if found is not None else analyze()


def keep_analysis(info: ModelInfo) -> None:
    """Keep ``info`` for the next read of the same bytes (unless it is kept already). A run
    calls this once it goes on with the model: a refused model or a checked config leaves the
    cache as it was."""
    if info.format not in CORE_FORMATS or ANALYSES.path(_key(info.sha256)).is_file():
        return  # an engine's own format is read by its plugin, not by these readers
    analysis = _CONVERTER.unstructure(info)
    ANALYSES.store(_key(info.sha256), {"sha256": info.sha256, "analysis": analysis})


def _structured(document: Any, sha256: str) -> ModelInfo | None:
    try:
        if document["sha256"] != sha256:
            return None
        return _CONVERTER.structure(document["analysis"], ModelInfo)
    except (KeyError, TypeError, ValueError, cattrs.BaseValidationError):
        return None  # absent or damaged: read the model again

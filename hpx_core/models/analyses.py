"""Model analyses kept in the hpx cache, so a warm run does not parse a model again.

Reading a model loads its format's schemas (for a ``.tflite``, the flatbuffers schema and
NumPy: about a tenth of a second before the first field is read). What a reader finds depends
only on the file's bytes and the reader's own code, so an analysis is kept under
``$HPX_CACHE_DIR/model-analyses``, named by the model's SHA-256 and the identity of the readers
that would be asked for it (:func:`reader_identity` of each: its sources and version): an edited
reader, another schema package or another plugin installed reads every model again. The path a
model was read from is not part of an analysis; the caller's path is put back. The last few
analyses are also held in memory, so a process that asks the same readers twice (a matrix's
cells, the default engine's choice and the run) parses a model once.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import cattrs

from hpx_core.kept import KeptFolder
from hpx_core.models.info import ModelInfo

ANALYSES = KeptFolder("model-analyses", keep=256)
HELD = 8  # analyses held in memory at once; the oldest goes first
_held: OrderedDict[str, ModelInfo] = OrderedDict()
_lock = threading.Lock()
CORE = "hpx_core"
CORE_SCHEMAS = "tflite"  # the package of the TFLite flatbuffers schema the core's reader uses


def _converter() -> cattrs.Converter:
    converter = cattrs.Converter()
    converter.register_unstructure_hook(Path, str)
    converter.register_structure_hook(Path, lambda value, _: Path(value))
    return converter


_CONVERTER = _converter()


def _digest_sources(digest: Any, folder: Path, pattern: str) -> None:
    for source in sorted(folder.glob(pattern)):
        digest.update(source.relative_to(folder).as_posix().encode() + b"\0" + source.read_bytes())


def _digest_package(digest: Any, top: ModuleType | None) -> None:
    """Every source of a plugin's top-level package (or its one module); code hpx cannot read
    (a module made in memory) gets a token of this process, so nothing it read is found again
    by another."""
    folders = getattr(top, "__path__", None)
    if folders is not None:
        for folder in sorted(folders):
            _digest_sources(digest, Path(folder), "**/*.py")
    elif top is not None and getattr(top, "__file__", None):
        digest.update(Path(str(top.__file__)).read_bytes())
    else:
        digest.update(_PROCESS.encode())


_PROCESS = uuid.uuid4().hex


@functools.cache
def _core_models() -> str:
    """The core's model records and reading tools, which every reader builds on."""
    digest = hashlib.sha256()
    _digest_sources(digest, Path(__file__).parent, "*.py")
    return digest.hexdigest()


@functools.cache
def reader_identity(module: ModuleType, plugin_version: str) -> str:
    """A digest of what decides the answers of the reader ``module``: the core's model records,
    the sources of the reader's package (every module of a plugin's package; for the core's
    own reader, its module and the schema package's version) and the plugin's version."""
    digest = hashlib.sha256(_core_models().encode() + b"\0" + plugin_version.encode())
    top = module.__name__.partition(".")[0]
    if top == CORE:
        digest.update(Path(str(module.__file__)).read_bytes())
        try:
            digest.update(version(CORE_SCHEMAS).encode())
        except PackageNotFoundError:
            digest.update(b"absent")
    else:
        _digest_package(digest, sys.modules.get(top))
    return digest.hexdigest()[:16]


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

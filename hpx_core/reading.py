"""Reading a model file: every format is a plugin's, the core's own ``.tflite`` included.

A file is handed to ``hpx_read_model`` of the selected engine's plugin first (when a run names
one), then of every plugin until one answers; the core's reader (:mod:`hpx_core.default_plugins`)
is asked last. Each reader recognises its own files by their content, so a renamed model is
still read and a file no plugin answers is refused once, naming what is installed. An analysis
is kept by the model's SHA-256 and the identity of the readers that would be asked for it
(:mod:`hpx_core.models.analyses`), so a warm run parses nothing.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import uuid
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType

from hpx_core.contract import ModelRequest
from hpx_core.errors import HpxError, ModelError
from hpx_core.hooks import EngineHooks
from hpx_core.models import MAX_MODEL_BYTES, ModelInfo
from hpx_core.models.analyses import keep_analysis, kept_analysis
from hpx_core.plugins import DEFAULT_PLUGINS, DISABLE_ENV, Registry, default_registry
from hpx_core.sources.content import add_file, folder_files, package_roots
from hpx_core.user_files import read_regular

CORE = "hpx_core"
CORE_SCHEMAS = "tflite"  # the package of the TFLite flatbuffers schema the core's reader uses
MODELS = Path(__file__).parent / "models"  # the records and tools every reader builds on
_PROCESS = uuid.uuid4().hex  # code hpx cannot read: its analyses are this process's alone
OTHER_FORMAT = "other"
"""What :func:`model_format` says of a file no installed plugin reads."""


class UnreadFormatError(ModelError):
    """A file no installed plugin reads (rather than one a plugin found broken)."""


def load_model(path: Path, registry: Registry | None = None,
               engine: str | None = None) -> ModelInfo:
    """Read and analyze one model file (``engine``'s plugin asked first); the analysis a run
    kept of the same bytes by the same readers comes from the hpx cache."""
    path = Path(path)
    if not path.exists():
        raise ModelError(
            f"model file not found: {path}",
            hint="check model.path; relative paths are resolved from the current directory",
        )
    data = read_regular(path, limit=MAX_MODEL_BYTES, what="model file",
                        hint="check that the path is a readable model file", error=ModelError)
    registry = registry or default_registry()
    sha256 = hashlib.sha256(data).hexdigest()
    return kept_analysis(sha256, readers_identity(registry, engine), path,
                         lambda: read_model_bytes(data, path, registry, engine, sha256))


def read_model_bytes(data: bytes, path: Path, registry: Registry | None = None,
                     engine: str | None = None, sha256: str | None = None) -> ModelInfo:
    """Analyze a model already in memory; ``path`` names it in records and messages."""
    registry = registry or default_registry()
    request = ModelRequest(path, data, sha256 or hashlib.sha256(data).hexdigest())
    answer = EngineHooks(registry).read_model(request, engine)
    if answer is None:
        raise unread(path, data, registry)
    return answer


def keep_model(info: ModelInfo, registry: Registry, engine: str | None = None) -> None:
    """Keep ``info`` for the next :func:`load_model` of the same bytes by the same readers."""
    keep_analysis(info, readers_identity(registry, engine))


def model_format(path: Path | None, registry: Registry | None = None) -> str | None:
    """The format the installed plugins read ``path`` as; :data:`OTHER_FORMAT` when none
    reads it, None when there is no readable model to look at (the run says why)."""
    if path is None:
        return None
    try:
        return load_model(path, registry).format
    except UnreadFormatError:
        return OTHER_FORMAT
    except HpxError:
        return None


def readers_identity(registry: Registry, engine: str | None = None) -> str:
    """A digest of the readers in the order they are asked (``engine``'s plugin first): an
    analysis kept under it was made by code that would answer the same now."""
    impls = list(reversed(registry.manager.hook.hpx_read_model.get_hookimpls()))  # call order
    if engine is not None:
        owner = registry.engine(engine).module
        impls.sort(key=lambda impl: impl.plugin is not owner)  # stable: the rest keep theirs
    versions = {id(e.module): e.plugin.version for e in registry.engines.values()}
    asked = "\n".join(f"{i.plugin_name}={reader_identity(i.plugin, versions.get(id(i.plugin), ''))}"
                      for i in impls)
    return hashlib.sha256(asked.encode()).hexdigest()[:16]


@functools.cache
def reader_identity(module: ModuleType, plugin_version: str) -> str:
    """A digest of what decides the answers of the reader ``module``: the core's model records,
    the files of the reader's package (for the core's own reader, its module and the schema
    package's version) and the plugin's version."""
    digest = hashlib.sha256(plugin_version.encode())
    _add_folder(digest, MODELS)
    top = module.__name__.partition(".")[0]
    if top == CORE:
        digest.update(Path(str(module.__file__)).read_bytes())
        try:
            digest.update(version(CORE_SCHEMAS).encode())
        except PackageNotFoundError:
            digest.update(b"absent")
        return digest.hexdigest()[:16]
    roots = package_roots(sys.modules[top]) if top in sys.modules else []
    for root in roots:
        _add_folder(digest, root)
    if not roots:
        digest.update(_PROCESS.encode())
    return digest.hexdigest()[:16]


def _add_folder(digest: hashlib._Hash, root: Path) -> None:
    for rel, file in folder_files(root, skip_dirs=frozenset({"__pycache__"}),
                                  skip_suffixes=(".pyc",)):
        add_file(digest, rel, file)


def unread(path: Path, data: bytes, registry: Registry) -> UnreadFormatError:
    """The refusal of a file no installed plugin reads: its suffix, the formats installed
    plugins read and which engines run them, and the plugins disabled or broken."""
    suffix = path.suffix or "(no suffix)"
    detail = (f"{len(data)} bytes, too short to be a model" if len(data) < 8
              else f"file identifier {data[4:8]!r} at byte 4")
    readers: dict[str, list[str]] = {f: ["core"] for d in DEFAULT_PLUGINS for f in d.formats}
    for name, entry in sorted(registry.engines.items()):
        for kind in entry.descriptor.model_formats:
            readers.setdefault(kind, []).append(name)
    found = [", ".join(f"{kind} ({', '.join(names)})" for kind, names in sorted(readers.items()))]
    if registry.disabled:
        off = ", ".join(f"{p.name} ({p.distribution})" for p in registry.disabled)
        found.append(f"disabled by {DISABLE_ENV}: {off}")
    if registry.failures:
        found.append(f"failed to load: {', '.join(f.plugin.name for f in registry.failures)}")
    advice = (f"install the engine plugin that reads {suffix} files (`hpx plugins` lists the "
              "installed ones)")
    if registry.disabled:
        advice = f"enable the disabled plugin if it reads {suffix} files, or {advice}"
    if suffix.lstrip(".") in readers:
        advice = "check the path, or re-export the model"
    return UnreadFormatError(
        f"{path.name}: no installed plugin reads this {suffix} file ({detail})",
        f"formats installed plugins read: {'; '.join(found)}; {advice}")

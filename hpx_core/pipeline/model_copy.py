"""The model an engine is given: the user's file, or a corrected copy in the work folder.

An engine declares the model fields its tools require (``EngineDescriptor.model_fields``); a
model from an older converter may leave some empty. Then the engine compiles a copy with them
filled in (:mod:`hpx_core.models.tflite_fields`), the user's file stays as it is, and the
bundle's provenance names the copy and what hpx supplied.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from hpx_core.models import ModelInfo
from hpx_core.models.tflite_fields import write_with_fields
from hpx_core.plugins import Registry
from hpx_core.reading import load_model


def _strs(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen
class ModelCopy:
    """A corrected copy of the user's model: where it is, of what, and what hpx supplied."""

    path: Path
    sha256: str
    source_sha256: str
    supplied: tuple[str, ...] = attrs.field(converter=_strs)

    def provenance(self) -> dict[str, Any]:
        return {"path": str(self.path), "sha256": self.sha256, "of": self.source_sha256,
                "supplied": list(self.supplied)}


def model_for_engine(model: ModelInfo, needed: Iterable[str], folder: Path,
                     registry: Registry | None = None) -> tuple[ModelInfo, ModelCopy | None]:
    """``model`` when it has every ``needed`` field; else its copy in ``folder`` (same file
    name, so messages still name the user's model) and what was supplied."""
    missing = [field for field in needed if field in model.absent_fields]
    if not missing:
        return model, None
    path = folder / Path(model.path).name
    write_with_fields(Path(model.path), missing, path)
    copy = load_model(path, registry)
    return copy, ModelCopy(path, copy.sha256, model.sha256, missing)

"""The ``engine.config`` section of the ``helia-rt`` engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.sdk import auto_or_names, names_to_tuple

ENV = {"source_path": "HELIART_SOURCE_PATH", "dist_path": "HELIART_DIST_PATH"}
"""Environment variables that fill fields the config leaves unset."""


@attrs.frozen
class ReleaseSource:
    """A heliaRT release to use instead of the pinned commit (a development override)."""

    repo: str
    ref: str


@attrs.frozen
class HeliaRtConfig:
    """Where heliaRT comes from and how it is built; the backend is ``engine.backend``.

    ``variant`` is heliaRT's build type (``release_with_logs`` unless set; ``release`` compiles
    the profiler hooks out). ``input``/``input_seed`` choose the input bytes as for ``tflm``,
    ``kernels`` what of a source build is compiled and linked as for ``tflm`` (``model``: the
    kernels of the operators registered, kept as units; ``all``: the whole backend).
    """

    source_path: Path | None = None
    dist_path: Path | None = None
    source: ReleaseSource | None = None
    resolver_ops: Any = attrs.field(
        default="auto", converter=names_to_tuple, validator=auto_or_names
    )
    variant: str | None = None
    input: str = "random"
    input_seed: int = 0
    kernels: Literal["model", "all"] = "model"

"""The ``engine.config`` section of the ``tflm`` engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.sdk import auto_or_names, names_to_tuple


@attrs.frozen
class TflmConfig:
    """Options of upstream TFLite Micro; the backend is ``engine.backend``.

    ``input`` is ``random`` (seeded with ``input_seed``), ``zeros``, or a ``.npy``/``.bin``
    file; the same bytes feed the board and the host reference.

    ``kernels`` is what of the library is compiled and linked: ``model`` (default) the kernels
    of the operators registered and what they use, kept as units extended by later models;
    ``all`` every kernel, built as one whole library (what a model-independent library is, and
    what the model's own units are checked against).
    """

    resolver_ops: Any = attrs.field(
        default="auto", converter=names_to_tuple, validator=auto_or_names
    )
    source_path: Path | None = None
    input: str = "random"
    input_seed: int = 0
    kernels: Literal["model", "all"] = "model"

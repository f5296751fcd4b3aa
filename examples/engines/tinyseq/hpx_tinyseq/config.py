"""The ``engine.config`` section of the ``tinyseq`` engine."""

from __future__ import annotations

from typing import Any

import attrs

from hpx_core.sdk import ConfigRequest, FieldValueError

MAX_SEED = 2**32 - 1


def _seed(_instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and not 0 <= value <= MAX_SEED:
        raise FieldValueError(attribute.name, f"must be within [0, {MAX_SEED}], got {value}")


@attrs.frozen
class TinyseqConfig:
    """``input_seed``, when set, makes the input vector from this seed instead of the
    model file's ``input ... seed=S``."""

    input_seed: int | None = attrs.field(default=None, validator=_seed)


def validate(request: ConfigRequest) -> TinyseqConfig:
    return request.section.structure(TinyseqConfig)

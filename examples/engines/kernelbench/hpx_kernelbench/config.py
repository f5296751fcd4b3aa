"""The ``engine.config`` section of the ``kernelbench`` engine.

Structured by the core's strict converter (unknown keys get a did-you-mean, wrong types name
their YAML line); the rule that involves two fields is checked in :func:`validate`, where the
document can point at the line of the offending value.
"""

from __future__ import annotations

from typing import Any

import attrs

from hpx_core.sdk import ConfigRequest, FieldValueError

INT8_MIN, INT8_MAX = -128, 127


def _int8(_instance: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not INT8_MIN <= value <= INT8_MAX:
        raise FieldValueError(attribute.name, f"must be within [-128, 127], got {value}")


@attrs.frozen
class KernelbenchConfig:
    """How the benchmark's data is made and what every kernel clamps its output to.

    ``seed`` decides every weight, bias, input and quantization parameter (the same seed gives
    the same bytes on every machine); ``activation_min``/``activation_max`` are the output
    clamp of every kernel (-128/127: none; 0/127 after a zero point of -128 is a ReLU).
    """

    seed: int = 0
    activation_min: int = attrs.field(default=INT8_MIN, validator=_int8)
    activation_max: int = attrs.field(default=INT8_MAX, validator=_int8)


def validate(request: ConfigRequest) -> KernelbenchConfig:
    """The typed config, with the cross-field rule located at the YAML line."""
    config = request.section.structure(KernelbenchConfig)
    if config.activation_min > config.activation_max:
        raise request.section.error(
            "activation_min",
            f"activation_min ({config.activation_min}) is above activation_max "
            f"({config.activation_max})",
            "the output clamp needs activation_min <= activation_max",
        )
    return config

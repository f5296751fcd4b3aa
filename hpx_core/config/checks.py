"""Field validators whose failures name the field, so errors can point at its YAML line."""

from __future__ import annotations

import math
from typing import Any

import attrs


class FieldValueError(ValueError):
    """A field's value is of the right type but out of range."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


UINT32_MAX = 2**32 - 1
"""The largest count or size the firmware holds: its loops, sizes and wire fields are 32-bit."""


def at_least(minimum: int, *, most: int = UINT32_MAX) -> Any:
    """Validator: an int from ``minimum`` to ``most`` (``None`` passes: it means "unset").

    The upper bound defaults to what the firmware holds in 32 bits: a larger count would wrap
    (or not compile) there instead of being refused here.
    """

    def check(_instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
        if value is not None and value < minimum:
            raise FieldValueError(attribute.name, f"must be at least {minimum}, got {value}")
        if value is not None and value > most:
            why = " (the firmware holds it in 32 bits)" if most == UINT32_MAX else ""
            raise FieldValueError(attribute.name, f"must be at most {most:,}{why}, got {value}")

    return check


def finite_at_least(minimum: float) -> Any:
    """Validator: a finite number from ``minimum`` up (``None`` passes: it means "unset")."""

    def check(_instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
        if value is not None and not (math.isfinite(value) and value >= minimum):
            raise FieldValueError(attribute.name,
                                  f"must be a finite number of at least {minimum:g}, got {value}")

    return check


def auto_or_names(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    """Validator: the string ``"auto"`` or a list of names (e.g. ``resolver_ops``)."""
    if value == "auto":
        return
    if isinstance(value, tuple) and value and all(isinstance(x, str) and x for x in value):
        return
    raise FieldValueError(attribute.name, f'expected "auto" or a list of names, got {value!r}')


def names_to_tuple(value: Any) -> Any:
    """Converter companion of :func:`auto_or_names`: lists become tuples, the rest passes."""
    return tuple(value) if isinstance(value, list) else value

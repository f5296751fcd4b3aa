"""Field validators whose failures name the field, so errors can point at its YAML line."""

from __future__ import annotations

from typing import Any

import attrs


class FieldValueError(ValueError):
    """A field's value is of the right type but out of range."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def at_least(minimum: int) -> Any:
    """Validator: an int no smaller than ``minimum`` (``None`` passes: it means "unset")."""

    def check(_instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
        if value is not None and value < minimum:
            raise FieldValueError(attribute.name, f"must be at least {minimum}, got {value}")

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

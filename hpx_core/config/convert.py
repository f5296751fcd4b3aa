"""A strict cattrs converter and the translation of its errors into config paths.

cattrs is lenient by default ("5" becomes 5, "abc" becomes a tuple of letters); a config file
should say what it means, so scalars here must already have the right YAML type.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cattrs
from cattrs.errors import (
    AttributeValidationNote,
    ClassValidationError,
    IterableValidationError,
)

from hpx_core.config.checks import FieldValueError

ConfigPath = tuple[str | int, ...]


class StrictTypeError(TypeError):
    """A YAML value has the wrong type."""


def _strict(kind: type, name: str) -> Any:
    def structure(value: Any, _type: Any) -> Any:
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise StrictTypeError(f"expected {name}, got {_describe(value)}")
        return value

    return structure


def _path(value: Any, _type: Any) -> Path:
    if not isinstance(value, str) or not value:
        raise StrictTypeError(f"expected a path (string), got {_describe(value)}")
    return Path(value).expanduser()


def _str_tuple(value: Any, _type: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(x, str) for x in value):
        raise StrictTypeError(f"expected a list of strings, got {_describe(value)}")
    return tuple(value)


def _plain_dict(value: Any, _type: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StrictTypeError(f"expected a mapping, got {_describe(value)}")
    return dict(value)


def make_converter() -> cattrs.Converter:
    """The converter every config section and engine config is structured with."""
    converter = cattrs.Converter(detailed_validation=True, forbid_extra_keys=True)
    converter.register_structure_hook(int, _strict(int, "an integer"))
    converter.register_structure_hook(bool, _strict(bool, "true or false"))
    converter.register_structure_hook(str, _strict(str, "a string"))
    converter.register_structure_hook(float, _strict((int, float), "a number"))  # type: ignore[arg-type]
    converter.register_structure_hook(Path, _path)
    converter.register_structure_hook_func(lambda t: t == tuple[str, ...], _str_tuple)
    converter.register_structure_hook_func(lambda t: t == dict[str, Any], _plain_dict)
    converter.register_unstructure_hook(Path, str)
    return converter


def first_error(error: BaseException, path: ConfigPath = ()) -> tuple[ConfigPath, str]:
    """The first leaf failure inside a cattrs error group, with its path and a message."""
    for sub_path, leaf, expected in _leaves(error, path, None):
        return sub_path, _message(leaf, expected)
    return path, str(error)


def _leaves(
    error: BaseException, path: ConfigPath, expected: Any
) -> Iterator[tuple[ConfigPath, BaseException, Any]]:
    if isinstance(error, ClassValidationError | IterableValidationError):
        with_notes, without = error.group_exceptions()
        for sub, note in with_notes:
            key = note.name if isinstance(note, AttributeValidationNote) else note.index
            yield from _leaves(sub, (*path, key), note.type)
        for sub in without:
            yield from _leaves(sub, path, None)
    elif isinstance(error, FieldValueError):
        yield (*path, error.field), error, None
    else:
        yield path, error, expected


def _message(error: BaseException, expected: Any) -> str:
    if isinstance(error, StrictTypeError | FieldValueError):
        return str(error)
    choices = typing.get_args(_without_none(expected)) if _is_literal(expected) else ()
    if choices:
        return "must be one of " + ", ".join(repr(c) for c in choices)
    if expected is not None:
        return f"expected {_type_name(expected)}"
    return str(error)


def _is_literal(tp: Any) -> bool:
    return typing.get_origin(_without_none(tp)) is typing.Literal


def _without_none(tp: Any) -> Any:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        rest = [a for a in typing.get_args(tp) if a is not type(None)]
        return rest[0] if len(rest) == 1 else tp
    return tp


def _type_name(tp: Any) -> str:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    return getattr(tp, "__name__", str(tp))


_PLAIN = (bool, int, float, str, list, dict)


def _describe(value: Any) -> str:
    """``float 2.5``: the plain type a YAML value has (ruamel.yaml's ScalarFloat is a float to
    the user) and the value as written."""
    kind = next((t for t in _PLAIN if isinstance(value, t)), type(value))
    shown = kind(value) if kind in (bool, int, float, str) else value
    return f"{kind.__name__} {shown!r}"

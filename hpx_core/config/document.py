"""A configuration as the user wrote it: YAML with positions, CLI overrides, and their origins.

Every value remembers where it came from (``FILE:LINE:COL``, a CLI flag, an environment
variable, or the default), so errors point at the right line and ``hpx config show`` can explain
each value.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs
from cattrs.errors import BaseValidationError

from hpx_core.config.convert import ConfigPath, first_error, make_converter
from hpx_core.errors import ConfigError, Location
from hpx_core.suggest import did_you_mean

T = TypeVar("T")
_converter = make_converter()


@attrs.define
class ConfigDocument:
    """The raw configuration tree plus where each value came from."""

    file: Path | None
    tree: dict[str, Any]
    origins: dict[str, str] = attrs.field(factory=dict)

    @classmethod
    def load(cls, file: Path | None) -> ConfigDocument:
        """Read ``file`` (or start empty), keeping line and column of every key and value."""
        if file is None:
            return cls(None, {})  # nothing to parse: ruamel.yaml is not even loaded
        from hpx_core.config.safe_yaml import read_yaml

        return cls._of(file, read_yaml(file))

    @classmethod
    def parse(cls, data: bytes, file: Path) -> ConfigDocument:
        """As :meth:`load`, from the bytes of ``file`` already in memory."""
        from hpx_core.config.safe_yaml import parse_yaml

        return cls._of(file, parse_yaml(data, file))

    @classmethod
    def _of(cls, file: Path, tree: dict[str, Any]) -> ConfigDocument:
        document = cls(file, tree)
        document._record_origins(tree, ())
        return document

    def override(self, dotted: str, value: Any, origin: str) -> None:
        """Set ``dotted`` (e.g. ``"target.board"``) from a CLI flag or environment variable."""
        *parents, leaf = dotted.split(".")
        node = self.tree
        for key in parents:
            child = node.get(key)
            if not isinstance(child, dict):
                child = {}
                node[key] = child
            node = child
        node[leaf] = value
        self.origins[dotted] = origin

    def origin(self, dotted: str) -> str:
        """Where the value at ``dotted`` came from; ``"default"`` when nobody set it."""
        return self.origins.get(dotted, "default")

    def get(self, dotted: str) -> Any:
        """The raw value at ``dotted``, or ``None``."""
        node: Any = self.tree
        for key in dotted.split("."):
            if not isinstance(node, Mapping) or key not in node:
                return None
            node = node[key]
        return node

    def structure(self, cls: type[T], dotted: str = "", env: Mapping[str, str] | None = None,
                  *, only: Collection[str] | None = None, without: Collection[str] = ()) -> T:
        """Structure the subtree at ``dotted`` into ``cls``, or raise a located ConfigError.

        ``env`` maps field names to environment variables that supply a value the file and the
        command line left unset (recorded as the value's origin). ``only`` keeps just those keys
        of the subtree; ``without`` leaves out these dotted paths below it (the keys of the
        passes' own options, structured apart; still offered by did-you-mean).
        """
        for field, variable in (env or {}).items():
            key = f"{dotted}.{field}" if dotted else field
            if self.get(key) is None and os.environ.get(variable):
                self.override(key, os.environ[variable], f"env {variable}")
        raw = self.get(dotted) if dotted else self.tree
        prefix: ConfigPath = tuple(dotted.split(".")) if dotted else ()
        raw = _plain({} if raw is None else raw)
        if only is not None and isinstance(raw, dict):
            raw = {key: value for key, value in raw.items() if key in only}
        left_out = [tuple(path.split(".")) for path in without]
        raw = _dropping(raw, left_out)
        self._check_keys(raw, cls, prefix, left_out)
        try:
            return _converter.structure(raw, cls)
        except (BaseValidationError, ValueError, TypeError) as error:
            path, message = first_error(error)
            raise self.error(_dotted((*prefix, *path)), message) from None

    def error(self, dotted: str, message: str, hint: str = "") -> ConfigError:
        """A ConfigError about the value at ``dotted``, located in the file when it came from
        there, else naming what set it (``--engine-config``, an environment variable)."""
        where = self.locate(dotted)
        origin = self.origins.get(dotted)
        said = f" (set by {origin})" if where is None and origin not in (None, "default") else ""
        return ConfigError(f"{dotted}: {message}{said}", hint, where)

    def locate(self, dotted: str, *, key: bool = False) -> Location | None:
        """File position of the value (or key) at ``dotted``, when it came from the file."""
        if self.file is None:
            return None
        from ruamel.yaml.comments import CommentedMap, CommentedSeq  # a file was read with it

        *parents, leaf = dotted.split(".")
        node: Any = self.tree
        for part in parents:
            node = _child(node, part)
        if isinstance(node, CommentedSeq) and leaf.isdigit() and int(leaf) < len(node):
            line, column = node.lc.item(int(leaf))
        elif isinstance(node, CommentedMap) and leaf in node:
            line, column = node.lc.key(leaf) if key else node.lc.value(leaf)
        else:
            return None
        return Location(self.file, line + 1, column + 1)

    def _check_keys(self, raw: Any, cls: type[Any], prefix: ConfigPath,
                    left_out: list[tuple[str, ...]], here: tuple[str, ...] = ()) -> None:
        if not isinstance(raw, Mapping) or not attrs.has(cls):
            return
        fields = {f.name: f for f in attrs.fields(attrs.resolve_types(cls))}
        elsewhere = [path[-1] for path in left_out if path[:-1] == here]
        for key, value in raw.items():
            dotted = _dotted((*prefix, str(key)))
            if key not in fields:
                where = self.locate(dotted, key=True)
                origin = self.origins.get(dotted)
                said = f" (set by {origin})" if where is None and origin else ""
                known = [*fields, *elsewhere]
                raise ConfigError(
                    f"unknown key {dotted!r}{said}{did_you_mean(str(key), known)}",
                    "allowed here: " + ", ".join(known), where,
                )
            field_type = fields[key].type
            if isinstance(field_type, type) and attrs.has(field_type):
                self._check_keys(value, field_type, (*prefix, str(key)), left_out,
                                 (*here, str(key)))

    def _record_origins(self, node: Any, prefix: ConfigPath) -> None:
        from ruamel.yaml.comments import CommentedMap  # called for a file read with it

        if not isinstance(node, CommentedMap):
            return
        for key in node:
            path = (*prefix, str(key))
            location = self.locate(_dotted(path), key=True)
            self.origins[_dotted(path)] = str(location)
            self._record_origins(node[key], path)


def _child(node: Any, part: str) -> Any:
    """The mapping value or (for a number) the list item ``part`` of ``node``, or None."""
    if isinstance(node, Mapping):
        return node.get(part)
    if isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return node[int(part)]
    return None


def _plain(value: Any) -> Any:
    """Strip ruamel's comment-carrying types so cattrs sees ordinary dicts and lists."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _dropping(raw: Any, paths: list[tuple[str, ...]]) -> Any:
    """``raw`` without the values at ``paths`` (copies along each path; the rest shared)."""
    for path in paths:
        if not path or not isinstance(raw, dict) or path[0] not in raw:
            continue
        raw = dict(raw)
        if len(path) == 1:
            del raw[path[0]]
        else:
            raw[path[0]] = _dropping(raw[path[0]], [path[1:]])
    return raw


def _dotted(path: ConfigPath) -> str:
    return ".".join(str(p) for p in path)


@attrs.frozen
class DocumentSection:
    """The ``engine.config`` section of a document, as :class:`hpx_core.contract.EngineSection`:
    what an engine's ``hpx_validate_config`` reads (the document itself stays the core's)."""

    document: ConfigDocument
    dotted: str = "engine.config"

    def structure(self, cls: type[T], *, env: Mapping[str, str] | None = None) -> T:
        return self.document.structure(cls, self.dotted, env=env)

    def error(self, key: str, message: str, hint: str = "") -> ConfigError:
        return self.document.error(f"{self.dotted}.{key}", message, hint)

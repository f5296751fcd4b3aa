"""Round-trip YAML for files hpx did not write: bounded size, depth and alias expansion.

A config file is read by a person's tool chain and sometimes generated; a hostile or broken one
must end in one located ConfigError, quickly. Parsing is linear but slow in pure Python, so the
size is capped before parsing; nesting is capped before the composer recurses; and aliases are
charged by the number of values they stand for, so a billion-laughs file is refused while
composing, long before anything walks the expanded tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, StreamMark, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import CollectionNode, MappingNode, Node
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.scanner import RoundTripScanner

from hpx_core.errors import ConfigError, Location

MAX_BYTES = 256 * 1024  # a real config is a few KiB; parsing 256 KiB takes seconds
MAX_DEPTH = 64
MAX_ALIAS_NODES = 10_000
_LIMIT_HINT = (
    f"hpx reads config files of at most {MAX_BYTES // 1024} KiB, nested at most "
    f"{MAX_DEPTH} levels, whose aliases stand for at most {MAX_ALIAS_NODES:,} values; "
    "write the values out plainly"
)


class _LimitError(MarkedYAMLError):
    """A limit of this module was exceeded (not a syntax error)."""


def _expanded_size(node: Node, sizes: dict[int, int]) -> int:
    """Values ``node`` stands for once every alias below it is expanded (memoized per node)."""
    if id(node) in sizes:
        return sizes[id(node)]
    size = 1
    if isinstance(node, CollectionNode):
        pairs = isinstance(node, MappingNode)
        children = [v for kv in node.value for v in kv] if pairs else node.value
        for child in children:
            size += _expanded_size(child, sizes)
            if size > MAX_ALIAS_NODES:
                break  # enough to refuse; counting further only costs time
    sizes[id(node)] = size
    return size


class _BoundedComposer(Composer):
    """Charges every alias with the values it stands for and refuses past the budget.

    An alias of a collection still being composed (``&a [*a]``) is refused as well: ruamel
    would quietly turn it into ``None``.
    """

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self.warn_double_anchors = False  # YAML allows redefining an anchor; no console noise
        self._charged = 0
        self._sizes: dict[int, int] = {}
        self._alias_mark: StreamMark | None = None

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.parser.check_event(AliasEvent):
            self._alias_mark = self.parser.peek_event().start_mark
        return super().compose_node(parent, index)

    def return_alias(self, a: Any) -> Any:
        if isinstance(a, CollectionNode) and a.end_mark is None:  # still being composed
            raise _LimitError(problem="an alias refers to itself", problem_mark=self._alias_mark)
        self._charged += _expanded_size(a, self._sizes)
        if self._charged > MAX_ALIAS_NODES:
            raise _LimitError(
                problem=f"aliases expand to more than {MAX_ALIAS_NODES:,} values",
                problem_mark=self._alias_mark,
            )
        return super().return_alias(a)


class _BoundedScanner(RoundTripScanner):
    """Refuses deep flow nesting as it is scanned: every open ``[`` may start a key, so the
    scanner's work grows with the square of the depth before the composer ever sees it."""

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: str) -> None:  # noqa: N803
        if len(self.flow_context) >= MAX_DEPTH:
            raise MaxDepthExceededError(problem_mark=self.reader.get_mark())
        super().fetch_flow_collection_start(TokenClass, to_push)


_UNREADABLE = (ValueError, OverflowError, TypeError, IndexError)
"""What ruamel and Python raise on a value they cannot build: a 5,000-digit integer, month 13,
``-_`` taken for an integer (IndexError), a list inside a mapping key (TypeError)."""
_KINDS = {"int": "an integer", "float": "a number", "timestamp": "a date", "bool": "a boolean"}


class _CheckedConstructor(RoundTripConstructor):
    """Turns Python's refusals of a value into located YAML errors."""

    def construct_non_recursive_object(self, node: Any, tag: str | None = None) -> Any:
        try:
            return super().construct_non_recursive_object(node, tag)
        except _UNREADABLE as error:
            kind = _KINDS.get(str(node.tag).rsplit(":", 1)[-1], "a value")
            shown = f"{node.value!r} " if isinstance(node.value, str) else ""
            reason = str(error).split(";")[0]
            raise ConstructorError(
                problem=f"cannot read {shown}as {kind} ({reason})", problem_mark=node.start_mark
            ) from None


def _loader() -> YAML:
    yaml = YAML(typ="rt")
    yaml.Scanner = _BoundedScanner
    yaml.Composer = _BoundedComposer
    yaml.Constructor = _CheckedConstructor
    yaml.max_depth = MAX_DEPTH
    return yaml


def _decode(data: bytes, file: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise ConfigError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x})",
            "save the file as UTF-8",
            Location(file, line, column),
        ) from None


def _position(file: Path, text: str, index: int) -> Location:
    """The line and column of character ``index`` of ``text``."""
    line = text.count("\n", 0, index) + 1
    return Location(file, line, index - (text.rfind("\n", 0, index) + 1) + 1)


def _located(file: Path, mark: StreamMark | None) -> Location | None:
    return Location(file, mark.line + 1, mark.column + 1) if mark is not None else None


def read_yaml(file: Path) -> dict[str, Any]:
    """The top-level mapping of ``file``, with positions; ConfigError for anything else."""
    try:
        with file.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"cannot read {file}: {error.strerror}", "check the path") from None
    return parse_yaml(data, file)


def parse_yaml(data: bytes, file: Path) -> dict[str, Any]:
    """The top-level mapping of ``data`` (the bytes of ``file``), as :func:`read_yaml`."""
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{file} is larger than {MAX_BYTES // 1024} KiB", _LIMIT_HINT)
    text = _decode(data, file)
    try:
        tree = _loader().load(text)
    except MaxDepthExceededError as error:
        where = _located(file, error.problem_mark)
        message = f"values nested deeper than {MAX_DEPTH} levels"
        raise ConfigError(message, _LIMIT_HINT, where) from None
    except _LimitError as error:
        where = _located(file, error.problem_mark)
        raise ConfigError(str(error.problem), _LIMIT_HINT, where) from None
    except MarkedYAMLError as error:
        where = _located(file, error.problem_mark or error.context_mark)
        problem = " ".join(str(error.problem or error.context or "a syntax error").split())
        raise ConfigError(f"invalid YAML: {problem}", "fix the syntax", where) from None
    except ReaderError as error:
        where = _position(file, text, error.position)
        character = f"U+{error.character:04X}" if isinstance(error.character, int) else "a byte"
        raise ConfigError(f"invalid YAML: {character} is not allowed in YAML text ({error.reason})",
                          "remove control characters from the file", where) from None
    except YAMLError as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ConfigError(f"invalid YAML: {first}", "fix the syntax") from None
    except _UNREADABLE as error:  # a value of the top-level mapping, built after composing
        raise ConfigError(f"invalid YAML: cannot read a value ({str(error).split(';')[0]})",
                          "fix the syntax", Location(file, 1, 1)) from None
    if tree is None:
        return CommentedMap()
    if not isinstance(tree, CommentedMap):
        raise ConfigError(f"{file}: the top level must be a mapping", "see examples in configs/")
    return tree

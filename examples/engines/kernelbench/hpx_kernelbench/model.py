"""The kernelbench "model": a YAML list of int8 kernel calls, read with positions.

Every defect names ``file:line:col`` and says how to fix it (a :class:`ModelError`, never a
traceback), because the file is written by hand. The calls run in order, each reading the
previous call's output, so one input shape and the kernels' own parameters fix every shape::

    kernelbench: 1
    input: [1, 16, 16, 8]          # NHWC
    kernels:
      - name: conv_3x3
        op: conv2d
        filter: [16, 3, 3, 8]      # OHWI; I must equal the incoming channels
        stride: 1                  # or [stride_h, stride_w]
        padding: same              # or valid
      - name: classifier
        op: fully_connected
        units: 10                  # reads the previous output flattened per batch
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from hpx_core.sdk import ModelError
from hpx_kernelbench.kernels import (
    MAX_DEPTH,
    MAX_DIM,
    MAX_KERNELS,
    Conv2d,
    FullyConnected,
    KernelCall,
    KernelList,
    Shape,
    conv_geometry,
)

FORMAT_VERSION = 1
SUFFIXES = (".yaml", ".yml")
SHAPE_HINT = (
    "a kernelbench model is `kernelbench: 1`, `input: [N, H, W, C]` and `kernels:`, a list of "
    "{name, op: conv2d, filter: [O, H, W, I], stride, padding} or "
    "{name, op: fully_connected, units}"
)
KEYS = {
    "top": ("kernelbench", "input", "kernels"),
    "conv2d": ("name", "op", "filter", "stride", "padding"),
    "fully_connected": ("name", "op", "units"),
}
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


_MARKER = re.compile(rb"^kernelbench[ \t]*:", re.MULTILINE)


def is_kernelbench_file(path: Path, data: bytes) -> bool:
    """Files this engine answers for: YAML by their name with a top-level ``kernelbench:`` key
    (the rest is checked later), so another engine's YAML stays the other engine's."""
    return path.suffix.lower() in SUFFIXES and _MARKER.search(data) is not None


class _Reader:
    """Checks one document, turning every defect into a located ModelError."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, node: Any, key: str | int | None, message: str, hint: str = SHAPE_HINT,
             *, at_key: bool = False) -> ModelError:
        return ModelError(f"{self.where(node, key, at_key=at_key)}: {message}", hint)

    def where(self, node: Any, key: str | int | None, *, at_key: bool = False) -> str:
        try:
            if isinstance(node, CommentedMap) and key is not None:
                line, col = node.lc.key(key) if at_key else node.lc.value(key)
            elif isinstance(node, CommentedSeq) and isinstance(key, int):
                line, col = node.lc.item(key)
            else:
                line, col = node.lc.line, node.lc.col
        except (AttributeError, KeyError, IndexError, TypeError):
            return str(self.path)
        return f"{self.path}:{line + 1}:{col + 1}"

    def keys(self, node: CommentedMap, allowed: Sequence[str], what: str) -> None:
        for key in node:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                guess = f"; did you mean {close[0]!r}?" if close else ""
                raise self.fail(node, key, f"unknown key {key!r} in {what}{guess}",
                                f"allowed in {what}: {', '.join(allowed)}", at_key=True)

    def required(self, node: CommentedMap, key: str, what: str) -> Any:
        if key not in node:
            raise self.fail(node, None, f"{what} has no `{key}`")
        return node[key]

    def integer(self, node: Any, key: str | int, what: str, low: int = 1,
                high: int = MAX_DIM) -> int:
        value = node[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(node, key, f"{what} must be an integer, got {value!r}")
        if not low <= value <= high:
            raise self.fail(node, key, f"{what} must be within [{low}, {high}], got {value}")
        return int(value)

    def shape(self, node: CommentedMap, key: str, what: str, rank: int) -> Shape:
        value = self.required(node, key, what)
        if not isinstance(value, CommentedSeq) or len(value) != rank:
            raise self.fail(node, key, f"{what}: `{key}` must be a list of {rank} integers, "
                            f"got {value!r}")
        return tuple(self.integer(value, i, f"{what}: {key}[{i}]") for i in range(rank))


def _load(path: Path, data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelError(f"{path}: not UTF-8 text (byte {error.start})",
                         "a kernelbench model is a YAML text file") from None
    try:
        return YAML(typ="rt").load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ModelError(f"{where}: invalid YAML: {error.problem}",
                         "fix the YAML syntax (indentation, a missing `:` or `-`)") from None
    except YAMLError as error:
        raise ModelError(f"{path}: invalid YAML: {error}", "fix the YAML syntax") from None


def read_kernels(path: Path, data: bytes) -> KernelList:
    """The kernel calls of a kernelbench file, with every shape derived and checked."""
    reader = _Reader(path)
    root = _load(path, data)
    if not isinstance(root, CommentedMap):
        raise ModelError(f"{path}: the top level must be a mapping", SHAPE_HINT)
    reader.keys(root, KEYS["top"], "a kernelbench model")
    version = reader.required(root, "kernelbench", "a kernelbench model")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise reader.fail(root, "kernelbench", f"unsupported format version {version!r}",
                          f"this engine reads `kernelbench: {FORMAT_VERSION}`")
    shape = reader.shape(root, "input", "the model", 4)
    calls = reader.required(root, "kernels", "a kernelbench model")
    if not isinstance(calls, CommentedSeq) or not calls:
        raise reader.fail(root, "kernels", "`kernels` must be a non-empty list of kernel calls")
    if len(calls) > MAX_KERNELS:
        raise reader.fail(root, "kernels", f"{len(calls)} kernel calls; at most {MAX_KERNELS}",
                          "split the benchmark into several files")
    found: list[KernelCall] = []
    for index in range(len(calls)):
        call = _call(reader, calls, index, shape, {c.name for c in found})
        if call.depth > MAX_DEPTH:
            raise reader.fail(calls, index, f"kernel {call.name!r} accumulates {call.depth} "
                              f"products per output, more than an int32 holds ({MAX_DEPTH})",
                              "make the filter or the fully connected input smaller")
        found.append(call)
        shape = call.output
    return KernelList(path=path, input=found[0].input, calls=tuple(found))


def _call(reader: _Reader, calls: CommentedSeq, index: int, shape: Shape,
          taken: set[str]) -> KernelCall:
    node = calls[index]
    if not isinstance(node, CommentedMap):
        raise reader.fail(calls, index, f"kernel call {index} must be a mapping")
    name = reader.required(node, "name", f"kernel call {index}")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise reader.fail(node, "name", f"kernel name {name!r} is not 1-64 letters, digits, "
                          "`_`, `.` or `-`", "name each kernel call like a C identifier")
    if name in taken:
        raise reader.fail(node, "name", f"kernel name {name!r} is used twice",
                          "layer names must be unique: they name the rows of the results")
    op = reader.required(node, "op", f"kernel {name!r}")
    if op not in ("conv2d", "fully_connected"):
        close = difflib.get_close_matches(str(op), ("conv2d", "fully_connected"), n=1)
        guess = f"; did you mean {close[0]!r}?" if close else ""
        raise reader.fail(node, "op", f"kernel {name!r}: unknown op {op!r}{guess}",
                          "kernelbench runs conv2d and fully_connected")
    reader.keys(node, KEYS[op], f"a {op} call")
    if op == "fully_connected":
        reader.required(node, "units", f"kernel {name!r}")
        units = reader.integer(node, "units", f"kernel {name!r}: units")
        return FullyConnected(name=name, input=shape, units=units)
    return _conv(reader, node, name, shape)


def _conv(reader: _Reader, node: CommentedMap, name: str, shape: Shape) -> Conv2d:
    what = f"kernel {name!r}"
    if len(shape) != 4:
        raise reader.fail(node, "op", f"{what}: conv2d needs an NHWC input, but the previous "
                          f"call's output is {list(shape)}",
                          "put convolutions before the fully connected layers")
    filt = reader.shape(node, "filter", what, 4)
    if filt[3] != shape[3]:
        raise reader.fail(node, "filter", f"{what}: the filter has {filt[3]} input channels "
                          f"but its input {list(shape)} has {shape[3]}",
                          "a conv2d filter is [O, H, W, I] with I the incoming channels")
    stride = _stride(reader, node, what)
    padding = node.get("padding", "same")
    if padding not in ("same", "valid"):
        raise reader.fail(node, "padding", f"{what}: padding must be same or valid, "
                          f"got {padding!r}", "same keeps ceil(input / stride) outputs")
    geometry = conv_geometry(shape, filt, stride, padding)
    if geometry is None:
        raise reader.fail(node, "filter", f"{what}: a {filt[1]}x{filt[2]} filter does not fit "
                          f"the {shape[1]}x{shape[2]} input with padding valid",
                          "use padding: same, or a smaller filter")
    output, pads = geometry
    return Conv2d(name=name, input=shape, filter=filt, stride=stride, padding=padding,
                  pads=pads, output=output)


def _stride(reader: _Reader, node: CommentedMap, what: str) -> tuple[int, int]:
    if "stride" not in node:
        return (1, 1)
    value = node["stride"]
    if isinstance(value, CommentedSeq):
        if len(value) != 2:
            raise reader.fail(node, "stride", f"{what}: stride must be one integer or "
                              f"[stride_h, stride_w], got {list(value)}")
        return (reader.integer(value, 0, f"{what}: stride[0]", high=16),
                reader.integer(value, 1, f"{what}: stride[1]", high=16))
    step = reader.integer(node, "stride", f"{what}: stride", high=16)
    return (step, step)

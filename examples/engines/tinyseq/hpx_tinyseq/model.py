"""The tinyseq model format: a text file, one statement a line, read into :class:`Sequence`.

::

    tinyseq 1                              # the first statement: format and version
    input 64 seed=3                        # the input vector: length, values from a seed
    dense fc1 32 shift=9 seed=11           # int8 weights [32, 64] and int32 biases from a seed
    relu act1                              # max(x, 0)
    dense fc2 4 shift=6 weights=1,-2,...   # weights inline (units x inputs values, row-major),
                                           # optional bias=..., zeros otherwise
    clamp out -64 63                       # min(max(x, -64), 63)

``#`` starts a comment; blank lines are ignored. Every layer reads the previous layer's output
(the input for the first). A dense layer computes, per output ``o``,
``acc = bias[o] + sum_i x[i] * w[o, i]`` in int32 and then
``clamp((acc + 2^(shift-1)) >> shift, -128, 127)`` (an arithmetic shift; no rounding term for
``shift=0``).

A file is this engine's when its name ends in ``.tseq`` or its first statement is ``tinyseq``;
anything else is left to other engines. Every defect of one of ours is a :class:`ModelError`
naming ``file:line``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import attrs

from hpx_core.sdk import ModelError

MAGIC = "tinyseq"
VERSION = 1
SUFFIX = ".tseq"
MAX_WIDTH = 4096  # elements of any vector; 4096 x 127 x 128 + a bias stays within int32
MAX_LAYERS = 240  # the harness measures at most HPX_MAX_LAYERS layers
MAX_SHIFT = 24
MAX_SEED = 2**32 - 1
BIAS_BOUND = 1 << 20
FORMAT_HINT = (
    "a tinyseq model is `tinyseq 1`, `input N [seed=S]`, then one layer a line: "
    "`dense NAME UNITS shift=K (seed=S | weights=v,v,... [bias=v,...])`, `relu NAME` or "
    "`clamp NAME LOW HIGH`"
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")
_INT = re.compile(r"[+-]?[0-9]{1,12}")


@attrs.frozen(eq=False)
class Dense:
    """An int8 fully connected layer, ``weights`` row-major ``[units, inputs]``."""

    name: str
    line: int
    inputs: int
    units: int
    shift: int
    weights: tuple[int, ...]
    bias: tuple[int, ...]
    op = "dense"

    @property
    def width(self) -> int:
        return self.units


@attrs.frozen(eq=False)
class Relu:
    name: str
    line: int
    inputs: int
    op = "relu"

    @property
    def width(self) -> int:
        return self.inputs


@attrs.frozen(eq=False)
class Clamp:
    name: str
    line: int
    inputs: int
    low: int
    high: int
    op = "clamp"

    @property
    def width(self) -> int:
        return self.inputs


Layer = Dense | Relu | Clamp


@attrs.frozen(eq=False)
class Sequence:
    """A parsed model: the input vector and the layers in order."""

    path: Path
    input: tuple[int, ...]
    input_seed: int
    layers: tuple[Layer, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(layer.name for layer in self.layers)

    @property
    def output_width(self) -> int:
        return self.layers[-1].width


def seeded_bytes(seed: int, what: str, count: int) -> bytes:
    """``count`` bytes from SHAKE-256 of the seed and a label: the same on every machine."""
    return hashlib.shake_256(f"tinyseq/{seed}/{what}".encode()).digest(count)


def seeded_int8(seed: int, what: str, count: int) -> tuple[int, ...]:
    """Values in [-127, 127] (TFLite's symmetric int8 range)."""
    return tuple(max(b - 256 if b > 127 else b, -127) for b in seeded_bytes(seed, what, count))


def seeded_bias(seed: int, count: int, shift: int) -> tuple[int, ...]:
    """int32 biases within +-2^shift (a few output steps), at most +-BIAS_BOUND."""
    bound = min(1 << shift, BIAS_BOUND)
    raw = seeded_bytes(seed, "bias", 4 * count)
    return tuple(int.from_bytes(raw[4 * i: 4 * i + 4], "little") % (2 * bound + 1) - bound
                 for i in range(count))


def is_tinyseq_file(path: Path, data: bytes) -> bool:
    """Ours by name (``.tseq``) or by content (the first statement is ``tinyseq``)."""
    if path.suffix.lower() == SUFFIX:
        return True
    for raw in data[:4096].splitlines():
        text = raw.split(b"#", 1)[0].strip()
        if text:
            return text.split()[0] == MAGIC.encode()
    return False


class _Line:
    """One statement: its words, and errors that name its line."""

    def __init__(self, path: Path, number: int, words: list[str]) -> None:
        self.path = path
        self.number = number
        self.words = words

    def fail(self, message: str, hint: str = FORMAT_HINT) -> ModelError:
        return ModelError(f"{self.path}:{self.number}: {message}", hint)

    def integer(self, text: str, what: str, low: int, high: int) -> int:
        if not _INT.fullmatch(text):
            raise self.fail(f"{what} must be an integer, got {text!r}")
        value = int(text)
        if not low <= value <= high:
            raise self.fail(f"{what} must be within [{low}, {high}], got {value}")
        return value

    def integers(self, text: str, what: str, low: int, high: int) -> tuple[int, ...]:
        return tuple(self.integer(item, f"{what}[{i}]", low, high)
                     for i, item in enumerate(text.split(",")))

    def options(self, start: int, allowed: tuple[str, ...]) -> dict[str, str]:
        found: dict[str, str] = {}
        for word in self.words[start:]:
            key, sep, value = word.partition("=")
            if not sep:
                raise self.fail(f"unexpected word {word!r} after `{self.words[0]}`; "
                                "options are KEY=VALUE")
            if key not in allowed:
                raise self.fail(f"unknown option {key!r} of `{self.words[0]}`",
                                f"`{self.words[0]}` takes {', '.join(allowed)}")
            if key in found:
                raise self.fail(f"option {key!r} given twice")
            found[key] = value
        return found

    def name(self) -> str:
        if len(self.words) < 2 or not _NAME.fullmatch(self.words[1]):
            got = repr(self.words[1]) if len(self.words) > 1 else "nothing"
            raise self.fail(f"`{self.words[0]}` needs a layer name (a C identifier of at most "
                            f"32 characters), got {got}")
        return self.words[1]


def _statements(path: Path, data: bytes) -> list[_Line]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ModelError(f"{path}:{line}: not UTF-8 text", "a tinyseq model is a text file"
                         ) from None
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if words:
            found.append(_Line(path, number, words))
    return found


def read_sequence(path: Path, data: bytes) -> Sequence:
    """The layers of a tinyseq file, every width derived and checked."""
    lines = _statements(path, data)
    if not lines:
        raise ModelError(f"{path}:1: the file has no statements", FORMAT_HINT)
    head = lines[0]
    if head.words[0] != MAGIC:
        raise head.fail(f"the first statement must be `{MAGIC} {VERSION}`, got "
                        f"{head.words[0]!r}")
    if len(head.words) != 2 or head.words[1] != str(VERSION):
        raise head.fail(f"unsupported format version {' '.join(head.words[1:])!r}",
                        f"this engine reads `{MAGIC} {VERSION}`")
    if len(lines) < 2 or lines[1].words[0] != "input":
        where = lines[1] if len(lines) > 1 else head
        raise where.fail("the second statement must be `input N [seed=S]`")
    first = lines[1]
    if len(first.words) < 2:
        raise first.fail("`input` needs the input's length")
    length = width = first.integer(first.words[1], "the input length", 1, MAX_WIDTH)
    input_seed = first.integer(first.options(2, ("seed",)).get("seed", "0"), "seed", 0,
                               MAX_SEED)
    layers: list[Layer] = []
    taken: dict[str, int] = {}
    for line in lines[2:]:
        if len(layers) == MAX_LAYERS:
            raise line.fail(f"more than {MAX_LAYERS} layers", "split the model into several")
        layer = _layer(line, width)
        if layer.name in taken:
            raise line.fail(f"layer name {layer.name!r} is used twice (first on line "
                            f"{taken[layer.name]})", "layer names name the rows of the results")
        taken[layer.name] = line.number
        layers.append(layer)
        width = layer.width
    if not layers:
        raise lines[-1].fail("the model has no layers after `input`")
    return Sequence(path=path, input=seeded_int8(input_seed, "input", length),
                    input_seed=input_seed, layers=tuple(layers))


def _layer(line: _Line, width: int) -> Layer:
    kind = line.words[0]
    if kind == "relu":
        name = line.name()
        line.options(2, ())
        return Relu(name=name, line=line.number, inputs=width)
    if kind == "clamp":
        name = line.name()
        if len(line.words) != 4:
            raise line.fail("`clamp` takes a name, LOW and HIGH")
        low = line.integer(line.words[2], "LOW", -128, 127)
        high = line.integer(line.words[3], "HIGH", -128, 127)
        if low > high:
            raise line.fail(f"clamp LOW ({low}) is above HIGH ({high})")
        return Clamp(name=name, line=line.number, inputs=width, low=low, high=high)
    if kind == "dense":
        return _dense(line, width)
    if kind in (MAGIC, "input"):
        raise line.fail(f"`{kind}` may appear only once, at the top")
    raise line.fail(f"unknown statement {kind!r}", "a layer is `dense`, `relu` or `clamp`")


def _dense(line: _Line, width: int) -> Dense:
    name = line.name()
    if len(line.words) < 3:
        raise line.fail(f"dense layer {name!r} needs its number of units")
    units = line.integer(line.words[2], f"dense layer {name!r}: units", 1, MAX_WIDTH)
    options = line.options(3, ("shift", "seed", "weights", "bias"))
    if "shift" not in options:
        raise line.fail(f"dense layer {name!r} has no shift=K",
                        "shift is the right shift applied to the int32 accumulator")
    shift = line.integer(options["shift"], "shift", 0, MAX_SHIFT)
    count = units * width
    if ("seed" in options) == ("weights" in options):
        raise line.fail(f"dense layer {name!r} needs exactly one of seed=S and weights=...")
    if "seed" in options:
        if "bias" in options:
            raise line.fail(f"dense layer {name!r}: bias=... goes with weights=..., "
                            "a seed makes the biases too")
        seed = line.integer(options["seed"], "seed", 0, MAX_SEED)
        weights = seeded_int8(seed, f"weights/{name}", count)
        bias = seeded_bias(seed, units, shift)
    else:
        weights = line.integers(options["weights"], "weights", -128, 127)
        if len(weights) != count:
            raise line.fail(f"dense layer {name!r} has {len(weights)} weights; {units} units "
                            f"over {width} inputs need {count}",
                            "weights are row-major [units, inputs]")
        bias = (line.integers(options["bias"], "bias", -BIAS_BOUND, BIAS_BOUND)
                if "bias" in options else (0,) * units)
        if len(bias) != units:
            raise line.fail(f"dense layer {name!r} has {len(bias)} biases for {units} units")
    return Dense(name=name, line=line.number, inputs=width, units=units, shift=shift,
                 weights=weights, bias=bias)

"""A data set as the device takes it: samples in the model's input types, read lazily.

Where samples come from (``hpx validate --data``):

- a ``.npy`` file: one sample (the input's shape, or its shape without the batch axis of 1) or
  a batch along the first axis; read memory-mapped, so a large file costs no memory;
- a ``.npz`` file: for a one-input model its one array (besides ``labels`` and the expected
  outputs), for several inputs one array per input named as the input; ``labels`` in it are
  the labels unless ``--labels`` names others; ``expected`` (one output) or
  ``expected_<output name>`` arrays are the outputs the model's exporter computed on the host
  for each sample, the host reference of an engine that cannot run the model on the host;
- a folder of ``.npy`` files (each a sample or a batch) and raw ``.bin`` files (one sample:
  every input's bytes in input order), taken in name order.

Each array is checked against its input (shape, dtype): integers must be the input's own type,
floats feeding a quantized input are quantized with the model's own scale and zero point
(said in the result), NaN or infinity in a float is refused. Every refusal names the file.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from hpx_core.errors import ConfigError
from hpx_core.models.info import TensorInfo

if TYPE_CHECKING:
    import numpy as np

LABELS_KEY = "labels"
EXPECTED_KEY = "expected"


@attrs.frozen
class Source:
    """One file of the data set: the arrays it holds per input (None for a raw ``.bin``), how
    many samples, and whether each array has a batch axis."""

    path: Path
    count: int
    arrays: tuple[Any, ...] | None
    batched: bool
    expected: tuple[Any, ...] | None = None


@attrs.define
class Saturation:
    """Float values each quantized input received, and how many of them fell outside the
    input's integer range (a data set in other units than the model's saturates)."""

    values: dict[str, int] = attrs.field(factory=dict)
    clipped: dict[str, int] = attrs.field(factory=dict)

    def add(self, name: str, values: int, clipped: int) -> None:
        self.values[name] = self.values.get(name, 0) + values
        self.clipped[name] = self.clipped.get(name, 0) + clipped

    def shares(self) -> dict[str, float]:
        return {name: self.clipped[name] / n for name, n in self.values.items() if n}


SATURATION_WARNING = 0.01
"""Share of an input's quantized values that saturated above which a run warns."""


def saturation_warnings(shares: dict[str, float]) -> list[str]:
    """A sentence per input whose quantized values saturated more than
    :data:`SATURATION_WARNING` (what the console and the page say)."""
    return [f"input {name}: {share:.1%} of the values fell outside the input's range when "
            "quantized: is the data in the model's units (its scale and zero point above)?"
            for name, share in shares.items() if share > SATURATION_WARNING]


@attrs.frozen
class DataSet:
    """The samples of ``sources`` in order, the first ``limit`` of them; ``labels`` one class
    per sample when given; ``notes`` what was done to the data (quantization)."""

    inputs: tuple[TensorInfo, ...]
    sources: tuple[Source, ...]
    count: int
    labels: tuple[int, ...] | None
    notes: tuple[str, ...]
    saturation: Saturation = attrs.field(factory=Saturation)

    def samples(self, start: int = 0) -> Iterator[tuple[bytes, ...]]:
        """Every sample from index ``start``, each the bytes of every input."""
        index = 0
        for source in self.sources:
            if index + source.count <= start:
                index += source.count
                continue
            for k in range(source.count):
                if index >= self.count:
                    return
                if index >= start:
                    yield _sample(source, k, self.inputs, self.saturation)
                index += 1

    @property
    def has_expected(self) -> bool:
        """Whether every file carries the host's expected outputs."""
        return all(s.expected is not None for s in self.sources)

    def expected(self, outputs: Sequence[TensorInfo], start: int,
                 count: int) -> list[tuple[bytes, ...]]:
        """The expected outputs of samples ``start`` to ``start + count``, each output's bytes
        in the device's memory order (its ``dim_order``)."""
        found, first = [], 0
        end = min(start + count, self.count)
        for source in self.sources:  # only the files that hold samples of the window
            for k in range(max(start - first, 0), min(end - first, source.count)):
                assert source.expected is not None
                found.append(tuple(_in_memory_order(a[k] if source.batched else a, t)
                                   for a, t in zip(source.expected, outputs, strict=True)))
            first += source.count
        return found


def load_data(path: Path, inputs: Sequence[TensorInfo], *, labels: Path | None = None,
              limit: int | None = None, outputs: Sequence[TensorInfo] = ()) -> DataSet:
    """The data set at ``path`` for a model with ``inputs`` (and ``outputs``, which expected
    outputs are checked against); ConfigError naming the file for anything the device could not
    take."""
    inputs = tuple(inputs)
    if not path.exists():
        raise ConfigError(f"data set not found: {path}",
                          "give a .npy or .npz file, or a folder of .npy or .bin samples")
    files = _files(path)
    notes: set[str] = set()
    sources = tuple(_source(f, inputs, tuple(outputs), notes) for f in files)
    if any(s.expected is not None for s in sources) and not all(
            s.expected is not None for s in sources):
        raise ConfigError(f"{path}: some files carry expected outputs and some do not",
                          "give every file its expected outputs, or none")
    total = sum(s.count for s in sources)
    if total == 0:
        raise ConfigError(f"{path} holds no samples", "give at least one sample")
    found = _labels(labels, path, total)
    count = min(total, limit) if limit else total
    return DataSet(inputs, sources, count, found[:count] if found is not None else None,
                   tuple(sorted(notes)))


def data_digest(path: Path, labels: Path | None = None) -> str:
    """SHA-256 over a data set's files (and its labels), read in pieces: what a matrix cell's
    fingerprint holds of it, so a changed data set is validated again. Absent files count as
    absent (the run itself names them)."""
    import hashlib

    digest = hashlib.sha256()
    files = ([path] if path.is_file() else sorted(p for p in path.iterdir() if p.is_file())
             if path.is_dir() else [])
    for file in [*files, *([labels] if labels is not None and labels.is_file() else [])]:
        digest.update((file.name if path.is_dir() else "").encode() + b"\0")
        with file.open("rb") as reader:
            while piece := reader.read(1 << 20):
                digest.update(piece)
    return digest.hexdigest()


def _files(path: Path) -> list[Path]:
    if path.is_file():
        if path.suffix not in (".npy", ".npz"):
            raise ConfigError(f"{path}: not a .npy or .npz file",
                              "a data set is a .npy/.npz file or a folder of .npy/.bin samples")
        return [path]
    files = sorted(p for p in path.iterdir() if p.suffix in (".npy", ".bin") and p.is_file())
    if not files:
        raise ConfigError(f"{path} holds no .npy or .bin files",
                          "put one sample per .npy or .bin file there (or batches in .npy)")
    return files


def _source(path: Path, inputs: tuple[TensorInfo, ...], outputs: tuple[TensorInfo, ...],
            notes: set[str]) -> Source:
    import numpy as np

    if path.suffix == ".bin":
        size = sum(_bytes(t) for t in inputs)
        if path.stat().st_size != size:
            raise ConfigError(f"{path} holds {path.stat().st_size} bytes; one sample of this "
                              f"model is {size}", _shapes(inputs))
        return Source(path, 1, None, False)
    expected: list[Any] | None = None
    try:
        if path.suffix == ".npy":
            arrays: list[Any] = [np.load(path, mmap_mode="r", allow_pickle=False)]
        else:
            with np.load(path, allow_pickle=False) as archive:
                stored = {k: archive[k] for k in archive.files if k != LABELS_KEY}
            expected = _expected(path, stored, outputs)
            arrays = _by_input(path, stored, inputs)
    except (OSError, ValueError) as error:
        raise ConfigError(f"{path} is not a NumPy file hpx can read ({error})",
                          "save it with numpy.save or numpy.savez") from None
    if len(arrays) != len(inputs):
        raise ConfigError(f"{path} holds {len(arrays)} array(s); the model has "
                          f"{len(inputs)} inputs", "give an .npz with one array per input, "
                          f"named {', '.join(t.name for t in inputs)}")
    counts, batched = zip(*(_count(path, a, t) for a, t in zip(arrays, inputs, strict=True)),
                          strict=True)
    if len(set(counts)) != 1:
        raise ConfigError(f"{path}: the inputs' arrays hold {list(counts)} samples",
                          "give every input the same number of samples")
    checked = tuple(_typed(path, a, t, notes) for a, t in zip(arrays, inputs, strict=True))
    if expected is not None:
        for array, tensor in zip(expected, outputs, strict=True):
            if _count(path, array, tensor) != (counts[0], batched[0]):
                raise ConfigError(f"{path}: expected output {tensor.name} holds "
                                  f"{_count(path, array, tensor)[0]} samples, the inputs "
                                  f"{counts[0]}", "give one expected output per sample")
    return Source(path, counts[0], checked, batched[0],
                  tuple(expected) if expected is not None else None)


def _expected(path: Path, stored: dict[str, Any],
              outputs: tuple[TensorInfo, ...]) -> list[Any] | None:
    """The expected outputs ``stored`` holds (taken out of it), in output order; None if it
    holds none."""
    import numpy as np

    keys = ([EXPECTED_KEY] if len(outputs) == 1 else
            [f"{EXPECTED_KEY}_{t.name}" for t in outputs])
    present = [k for k in stored if k == EXPECTED_KEY or k.startswith(f"{EXPECTED_KEY}_")]
    if not present:
        return None
    if sorted(present) != sorted(keys):
        raise ConfigError(f"{path} has expected outputs {sorted(present)}; the model's outputs "
                          f"call for {keys}", "name them as the model's outputs")
    found = [stored.pop(k) for k in keys]
    for array, tensor in zip(found, outputs, strict=True):
        if np.dtype(array.dtype) != np.dtype(tensor.dtype):
            raise ConfigError(f"{path}: expected output {tensor.name} is {array.dtype}, the "
                              f"model's is {tensor.dtype}", f"save it as {tensor.dtype}")
    return found


def _by_input(path: Path, stored: dict[str, Any],
              inputs: tuple[TensorInfo, ...]) -> list[Any]:
    if len(inputs) == 1 and len(stored) == 1:
        return list(stored.values())
    missing = [t.name for t in inputs if t.name not in stored]
    if missing:
        raise ConfigError(f"{path} has arrays {sorted(stored)}; the model's inputs are "
                          f"{[t.name for t in inputs]}", "name each array as its input")
    return [stored[t.name] for t in inputs]


def _count(path: Path, array: Any, tensor: TensorInfo) -> tuple[int, bool]:
    """How many samples ``array`` holds for ``tensor``, and whether it has a batch axis."""
    shape, want = tuple(array.shape), tuple(tensor.shape)
    if shape == want:
        return 1, False
    unbatched = want[1:] if want and want[0] == 1 else want
    if shape == unbatched:
        return 1, False
    if len(shape) == len(unbatched) + 1 and shape[1:] == unbatched:
        return shape[0], True
    if len(shape) == len(want) and shape[1:] == want[1:]:
        return shape[0], True
    if len(shape) == len(want) + 1 and shape[1:] == want:  # a stack of whole-shape samples
        return shape[0], True
    raise ConfigError(f"{path}: shape {list(shape)}, input {tensor.name} takes {list(want)}",
                      "give one sample of that shape, or a batch along the first axis")


def _in_memory_order(array: Any, tensor: TensorInfo) -> bytes:
    """A tensor given in its logical (NCHW ...) order as the device holds it: its dimensions
    in ``dim_order`` (channels last, say)."""
    import numpy as np

    values = np.asarray(array).reshape(tuple(tensor.shape))
    if tensor.dim_order and list(tensor.dim_order) != sorted(tensor.dim_order):
        values = np.transpose(values, tuple(tensor.dim_order))
    return np.ascontiguousarray(values, dtype=np.dtype(tensor.dtype)).tobytes()


def _typed(path: Path, array: Any, tensor: TensorInfo, notes: set[str]) -> Any:
    """``array`` checked for ``tensor``'s type: integers as they are, floats checked finite and
    quantized when the input is quantized (lazily per sample: see :func:`_element`)."""
    import numpy as np

    kind = np.dtype(array.dtype)
    want = np.dtype(tensor.dtype)
    if kind == want:
        if kind.kind == "f":
            _finite(path, array)
        return array
    if kind.kind == "f" and want.kind in "iu" and tensor.quantization is not None:
        _finite(path, array)
        q = tensor.quantization
        notes.add(f"float data quantized for input {tensor.name} with the model's scale "
                  f"{q.scales[0]:g} and zero point {q.zero_points[0]}")
        return array
    if kind.kind == "f" and want.kind == "f":
        _finite(path, array)
        notes.add(f"{kind} data cast to {want} for input {tensor.name}")
        return array
    raise ConfigError(f"{path}: dtype {kind}, input {tensor.name} takes {want}"
                      + (" (not quantized)" if want.kind in "iu" else ""),
                      f"save the data as {want}" + (" or as float (quantized by hpx)"
                                                    if tensor.quantization else ""))


def _finite(path: Path, array: Any) -> None:
    import numpy as np

    bad = ~np.isfinite(array)
    if bad.any():
        first = np.argwhere(bad)[0].tolist()
        raise ConfigError(f"{path}: NaN or infinity at index {first}",
                          "remove or fix those samples; a model input takes finite numbers")


def _sample(source: Source, k: int, inputs: tuple[TensorInfo, ...],
            saturation: Saturation) -> tuple[bytes, ...]:
    if source.arrays is None:
        data = source.path.read_bytes()
        parts, at = [], 0
        for tensor in inputs:
            parts.append(data[at:at + _bytes(tensor)])
            at += _bytes(tensor)
        return tuple(parts)
    return tuple(_element(a[k] if source.batched else a, t, saturation)
                 for a, t in zip(source.arrays, inputs, strict=True))


def _element(array: Any, tensor: TensorInfo, saturation: Saturation) -> bytes:
    import numpy as np

    want = np.dtype(tensor.dtype)
    values = np.asarray(array)
    if values.dtype.kind == "f" and want.kind in "iu":
        values, clipped = quantize(values, tensor)
        saturation.add(tensor.name, values.size, clipped)
    return _in_memory_order(values.astype(want, copy=False), tensor)


def quantize(values: np.ndarray, tensor: TensorInfo) -> tuple[np.ndarray, int]:
    """Real values as ``tensor``'s integers: round(x / scale) + zero point, saturated, as
    TFLite's quantize operator does (per tensor: an input's quantization); and how many
    values fell outside the integer range."""
    import numpy as np

    assert tensor.quantization is not None
    want = np.dtype(tensor.dtype)
    scale, zero = tensor.quantization.scales[0], tensor.quantization.zero_points[0]
    info = np.iinfo(want)
    q = np.round(values.astype(np.float64) / scale) + zero
    clipped = int(np.count_nonzero((q < info.min) | (q > info.max)))
    return np.clip(q, info.min, info.max).astype(want), clipped


def _labels(path: Path | None, data: Path, total: int) -> tuple[int, ...] | None:
    import numpy as np

    if path is None:
        if data.suffix != ".npz":
            return None
        with np.load(data, allow_pickle=False) as archive:
            if LABELS_KEY not in archive.files:
                return None
            values = archive[LABELS_KEY]
        where = f"{data} ({LABELS_KEY})"
    else:
        values = _label_file(path)
        where = str(path)
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise ConfigError(f"{where}: labels must be one class index per sample",
                          "save them as a 1-D integer array, or a text file, one per line")
    if len(values) != total:
        raise ConfigError(f"{where} holds {len(values)} labels for {total} samples",
                          "give one label per sample, in the samples' order")
    return tuple(int(v) for v in values)


def _label_file(path: Path) -> np.ndarray:
    import numpy as np

    if not path.is_file():
        raise ConfigError(f"labels not found: {path}", "give a .npy or a text file")
    if path.suffix == ".npy":
        try:
            loaded: np.ndarray = np.load(path, allow_pickle=False)
            return loaded
        except (OSError, ValueError) as error:
            raise ConfigError(f"{path} is not a NumPy file ({error})",
                              "save the labels with numpy.save") from None
    lines = [line.strip() for line in path.read_text("utf-8").splitlines() if line.strip()]
    try:
        return np.array([int(line) for line in lines], dtype=np.int64)
    except ValueError:
        raise ConfigError(f"{path}: a line that is not a class index",
                          "write one integer class index per line") from None


def _bytes(tensor: TensorInfo) -> int:
    if tensor.size_bytes is None:
        raise ConfigError(f"input {tensor.name} has no fixed size",
                          "hpx validates fixed-size inputs only")
    return tensor.size_bytes


def _shapes(inputs: Sequence[TensorInfo]) -> str:
    return "a sample is " + ", then ".join(f"{t.name} {list(t.shape)} {t.dtype}" for t in inputs)

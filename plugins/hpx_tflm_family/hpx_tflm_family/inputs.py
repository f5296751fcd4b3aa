"""What the firmware feeds the model: a file (.npy/.bin), seeded random values, or zeros.

The bytes are made on the host, embedded in the firmware and copied into the input tensors
before every inference; the same bytes feed the host reference, so outputs must match exactly.
Random inputs are kept in the hpx cache by seed, input types and NumPy's version: a warm run
does not load NumPy to make the same bytes again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs

from hpx_core.sdk import ConfigError
from hpx_core.sdk.cache import KeptFolder
from hpx_core.sdk.models import ModelInfo, TensorInfo

if TYPE_CHECKING:
    import numpy as np

InputKind = Literal["zeros", "random", "file"]
RANDOM_INPUTS = KeptFolder("random-inputs", keep=256)


@attrs.frozen
class InputSpec:
    """Where input bytes come from; ``describe()`` is what the results print."""

    kind: InputKind = "random"
    path: Path | None = None
    seed: int = 0

    @classmethod
    def parse(cls, value: str, seed: int = 0) -> InputSpec:
        """``zeros``, ``random``, or a path to a ``.npy``/``.bin`` file."""
        if value in ("zeros", "random"):
            return cls(value, None, seed)  # type: ignore[arg-type]
        return cls("file", Path(value), seed)

    def describe(self) -> str:
        if self.kind == "file":
            return f"file {self.path}"
        return f"random (numpy default_rng seed {self.seed})" if self.kind == "random" else "zeros"


def _size(tensor: TensorInfo) -> int:
    if tensor.size_bytes is None:
        raise ConfigError(f"input {tensor.name} has no fixed size ({tensor.dtype})",
                          "hpx can only feed fixed-size input tensors")
    return tensor.size_bytes


def _random(tensor: TensorInfo, rng: np.random.Generator) -> bytes:
    import numpy as np

    size = _size(tensor)
    if tensor.dtype.startswith("float"):
        count = size // np.dtype(tensor.dtype).itemsize
        return rng.standard_normal(count).astype(tensor.dtype).tobytes()
    return rng.integers(0, 256, size, dtype=np.uint8).tobytes()


def _random_key(seed: int, tensors: Sequence[TensorInfo]) -> str:
    """What decides the random bytes: the seed, NumPy's version, the inputs' types and sizes."""
    try:
        generator = f"numpy {version('numpy')}"
    except PackageNotFoundError:
        generator = "numpy absent"
    made_of = [seed, generator, [[t.dtype, _size(t)] for t in tensors]]
    return hashlib.sha256(json.dumps(made_of).encode()).hexdigest()


def _random_inputs(seed: int, tensors: Sequence[TensorInfo], keep: bool) -> tuple[bytes, ...]:
    """Seeded random bytes per tensor, from the cache when made before (kept now with
    ``keep``, else by :func:`keep_inputs` once what they fed has succeeded)."""
    key = _random_key(seed, tensors)
    kept = RANDOM_INPUTS.load_blobs(key)
    if kept is not None:
        return kept
    import numpy as np

    rng = np.random.default_rng(seed)
    made = tuple(_random(t, rng) for t in tensors)
    if keep:
        RANDOM_INPUTS.store_blobs(key, made)
    return made


def keep_inputs(spec: InputSpec, model: ModelInfo, inputs: tuple[bytes, ...]) -> None:
    """Keep random inputs made with ``keep=False`` in the cache, now that the host reference
    ran on them: a model the interpreter refuses leaves nothing in the cache."""
    if spec.kind != "random":
        return
    key = _random_key(spec.seed, model.inputs)
    if not RANDOM_INPUTS.path(key).exists():
        RANDOM_INPUTS.store_blobs(key, inputs)


def _from_file(path: Path, tensor: TensorInfo) -> bytes:
    import numpy as np

    if not path.is_file():
        raise ConfigError(f"input file not found: {path}", "give a .npy or .bin file, or zeros")
    if path.suffix == ".npy":
        array = np.load(path, allow_pickle=False)
        if str(array.dtype) != tensor.dtype:
            raise ConfigError(f"{path}: dtype {array.dtype}, the model's input is {tensor.dtype}",
                              f"save the array as {tensor.dtype}")
        data = np.ascontiguousarray(array).tobytes()
    elif path.suffix == ".bin":
        data = path.read_bytes()
    else:
        raise ConfigError(f"{path}: unknown input format", "use a .npy or raw .bin file")
    if len(data) != _size(tensor):
        raise ConfigError(f"{path} holds {len(data)} bytes, input {tensor.name} takes "
                          f"{_size(tensor)}", f"shape {tensor.shape}, dtype {tensor.dtype}")
    return data


def input_bytes(spec: InputSpec, model: ModelInfo, *, keep: bool = True) -> tuple[bytes, ...]:
    """One byte string per model input, in input order; random ones kept in the cache unless
    ``keep`` is False (then :func:`keep_inputs` keeps them after the host reference ran)."""
    if spec.kind == "zeros":
        return tuple(bytes(_size(t)) for t in model.inputs)
    if spec.kind == "random":
        return _random_inputs(spec.seed, model.inputs, keep)
    if len(model.inputs) != 1 or spec.path is None:
        raise ConfigError("an input file can feed only a single-input model",
                          "use random or zeros for models with several inputs")
    return (_from_file(spec.path, model.inputs[0]),)

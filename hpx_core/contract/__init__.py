"""The records that cross the plugin contract: what each hook receives and what it answers.

Every hook in :mod:`hpx_core.engine_protocol` takes one request record and returns one answer
record; all are frozen. A request carries everything the engine may need for its step, so an engine
never reads the pipeline's state. What an engine learns in one step and needs in a later one
(the input it chose, the host reference outputs, its library key) it returns as ``facts`` on its
:class:`FirmwareContribution`; the core hands that same object back in :class:`ResultsRequest`.
The one fact the core itself reads is typed: a :class:`LayerReference`, every layer's outputs
as the engine's host reference computes them, which the core's layer check compares with what
the device sends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, TypeVar

import attrs
from attrs import AttrsInstance

from hpx_core.contract.engine import EngineDescriptor as EngineDescriptor
from hpx_core.contract.engine import EngineSelection as EngineSelection
from hpx_core.contract.engine import checked
from hpx_core.contract.engine import strs as _strs
from hpx_core.contract.memory import BufferNeed as BufferNeed
from hpx_core.contract.memory import BufferPlacement as BufferPlacement
from hpx_core.contract.memory import CodeSize as CodeSize
from hpx_core.contract.memory import MemoryFigures as MemoryFigures
from hpx_core.contract.memory import MemoryLayout as MemoryLayout
from hpx_core.contract.memory import MemoryNeeds as MemoryNeeds
from hpx_core.contract.memory import MemoryRequest as MemoryRequest
from hpx_core.errors import HpxError
from hpx_core.models.views import model_view as model_view
from hpx_core.sources.records import Provenance as Provenance
from hpx_core.sources.records import SourceRepo as SourceRepo
from hpx_core.sources.records import SourceSet as SourceSet

if TYPE_CHECKING:
    from hpx_core.boards.model import Board
    from hpx_core.models.info import ModelInfo
    from hpx_core.sources.pins import PinSet
    from hpx_core.wire.capture import Capture

Json: TypeAlias = bool | int | float | str | Sequence["Json"] | Mapping[str, "Json"] | None
"""A value that becomes JSON in the result bundle."""

Facts: TypeAlias = AttrsInstance
"""An engine's own frozen attrs record of what it learned generating firmware (handed back to
its later hooks, never written to disk)."""

ToolchainName = Literal["arm-none-eabi-gcc", "clang", "atfe", "armclang"]
"""The toolchains hpx builds with (``target.toolchain``)."""

CheckLayers = Literal["off", "first", "all"]
"""``profiling.check_layers``: no layer check, the first differing layer in full, or every one."""


T = TypeVar("T")


def _ints(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(values)


def _buffers(values: Iterable[PlannedBuffer]) -> tuple[PlannedBuffer, ...]:
    return tuple(values)


def _libraries(values: Iterable[LibraryUse]) -> tuple[LibraryUse, ...]:
    return tuple(values)


def _pairs(values: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    return tuple(values)


def _regions(values: Iterable[Region]) -> tuple[Region, ...]:
    return tuple(values)


def _tensors(values: Iterable[ReferenceTensor]) -> tuple[ReferenceTensor, ...]:
    return tuple(values)


def _layers(values: Iterable[ReferenceLayer]) -> tuple[ReferenceLayer, ...]:
    return tuple(values)


def _outputs(values: Iterable[ReferenceOutput]) -> tuple[ReferenceOutput, ...]:
    return tuple(values)


# --------------------------------------------------------------------------------------------
# Requests and answers, in pipeline order


class EngineSection(Protocol):
    """The config's ``engine.config`` section as an engine's validation reads it.

    ``structure`` builds the engine's frozen config class strictly: an unknown key is refused
    with a did-you-mean, a wrongly typed value names its key and type, and every error points
    at the value's ``file:line:col`` (or names the command-line flag that set it). ``env`` maps
    field names to environment variables that supply a value nothing else set. ``error`` makes
    the same kind of error for a rule of the engine's own (two keys that exclude each other).
    """

    def structure(self, cls: type[T], *, env: Mapping[str, str] | None = None) -> T: ...

    def error(self, key: str, message: str, hint: str = "") -> HpxError: ...


@attrs.frozen
class ConfigRequest:
    """For ``hpx_validate_config``: the engine, its backend and its ``engine.config``."""

    engine: str
    backend: str | None
    section: EngineSection


@attrs.frozen
class ModelRequest:
    """For ``hpx_read_model``: a model file, offered to every plugin until one reads it."""

    path: Path
    data: bytes
    sha256: str


@attrs.frozen
class NotesRequest:
    """For ``hpx_describe_model``: a model as the core (or its engine) read it."""

    model: ModelInfo


@attrs.frozen
class ModelNote:
    """One line an engine adds to ``hpx analyze`` about a model it reads (``warning``: shown
    as something the user must act on, e.g. kernels only some boards may run)."""

    label: str
    value: str
    warning: bool = False


@attrs.frozen
class ModelCheckRequest:
    """For ``hpx_check_model``: the model the run will give the engine, and the engine chosen
    for it (its backend may decide which kernels prepare the model)."""

    engine: EngineSelection
    model: ModelInfo


@attrs.frozen
class ModelRefusal:
    """Why the engine cannot prepare a model: said at ``hpx config validate`` and before a
    profile fetches anything, instead of an interpreter failing later (name the operator by
    index and name, and what it requires)."""

    message: str
    hint: str


@attrs.frozen
class SourcesRequest:
    """For ``hpx_materialize_sources``: where the sources must be able to run, and the pins.

    ``catalog`` holds every pin hpx knows (the core's and every engine's declarations); pass it
    to :func:`hpx_core.sources.materialize`.
    """

    engine: EngineSelection
    board: Board
    catalog: PinSet
    offline: bool = False


@attrs.frozen
class FirmwareRequest:
    """For ``hpx_generate_firmware``: the model, the board, the sources and how to build.

    ``model`` is the user's model, or hpx's corrected copy of it when it lacked a field the
    engine declared in ``model_fields``. ``scratch`` is a folder private to this run for the
    engine's intermediate files (a compiler's output, say); ``log`` is the run's log file, where
    a tool the engine runs in-process writes (:func:`hpx_core.sdk.enginelib.tool_output_to`);
    ``arena_size`` is ``model.arena_size`` from the config (None: the engine's own default);
    ``layout`` places the buffers the engine declared in ``hpx_plan_memory`` (None when it
    declares none). ``check_layers`` is ``profiling.check_layers`` (``off``, ``first``,
    ``all``): when not ``off`` an engine that can implements ``hpx_engine_check()`` and answers
    a :class:`LayerReference`.
    """

    engine: EngineSelection
    board: Board
    model: ModelInfo
    sources: SourceSet
    toolchain: ToolchainName
    jobs: int
    scratch: Path
    log: Path
    arena_size: int | None = None
    layout: MemoryLayout | None = None
    check_layers: CheckLayers = "off"


@attrs.frozen
class PlannedBuffer:
    """A large buffer the glue defines: its ELF symbol, size, and the region uses allowed.

    Uses are the ``use`` words of the board's memory map (``data``, ``sram``, ``tcm``,
    ``flash``, ``code``); the core checks the plan before compiling and the linked ELF after.
    """

    what: str
    symbol: str
    size: int
    uses: tuple[str, ...] = attrs.field(converter=_strs)


@attrs.frozen
class LibraryUse:
    """An engine library the firmware links: its cache key, and whether this run built it.

    When this run built it: ``compiled`` compile units, and ``compiler_cache`` the compiler
    cache's ``tool``, ``hits``, ``misses`` and ``uncached`` (None: built without one).
    ``linked``: for a library kept as units, what of it the firmware links (``46 of 160
    units``); the key then names the units too.
    """

    name: str
    key: str
    built: bool
    seconds: float = 0.0
    compiled: int = 0
    compiler_cache: Mapping[str, Json] | None = None
    linked: str | None = None

    @property
    def label(self) -> str:
        """How bundles name it: its cache folder's name (``<name>-<key>``)."""
        return f"{self.name}-{self.key[:20]}"


@attrs.frozen
class ReferenceTensor:
    """One tensor as the host reference computed it: its bytes and how to read them.

    ``tensor`` is the engine's own id of the tensor (for TFLite its index in the subgraph), so
    the core can tell which layer's output feeds which layer; ``scale``/``zero_point`` are its
    quantization (None: not quantized).
    """

    tensor: int
    dtype: str
    shape: tuple[int, ...] = attrs.field(converter=_ints)
    data: bytes
    scale: float | None = None
    zero_point: int | None = None


@attrs.frozen
class ReferenceLayer:
    """A layer's outputs, and its non-constant inputs, in the order the firmware sends them."""

    index: int
    outputs: tuple[ReferenceTensor, ...] = attrs.field(converter=_tensors)
    inputs: tuple[ReferenceTensor, ...] = attrs.field(default=(), converter=_tensors)


@attrs.frozen
class LayerReference:
    """Every layer the host reference computed, in layer order, from the firmware's input.

    ``stopped`` says in one line why it ends before the model's last layer (an operator the
    host cannot run); the layers before it are still checked.
    """

    source: str
    layers: tuple[ReferenceLayer, ...] = attrs.field(converter=_layers)
    stopped: str | None = None


@attrs.frozen
class FirmwareContribution:
    """Answer of ``hpx_generate_firmware``: the engine's glue for the core's harness.

    ``files`` are written into the generated project (relative path -> text); ``sources`` of
    them are compiled into ``hpx_app``; ``cmake`` is a fragment included after the core defines
    ``hpx_app`` (it adds the engine's libraries and links them). ``buffers`` are the large
    buffers the glue defines. ``libraries`` say which cached engine libraries are linked.
    ``facts`` is anything the engine wants back in ``hpx_result_extras`` (a frozen record of its
    own); it is never written to disk. ``layer_reference`` is set when the firmware runs the
    layer check (``FirmwareRequest.check_layers``): the core compares the device with it.
    """

    files: Mapping[str, str] = attrs.field(factory=dict)
    sources: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    include_dirs: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    defines: Mapping[str, str] = attrs.field(factory=dict)
    cmake: str = ""
    fingerprint_inputs: Mapping[str, str] = attrs.field(factory=dict)
    buffers: tuple[PlannedBuffer, ...] = attrs.field(default=(), converter=_buffers)
    libraries: tuple[LibraryUse, ...] = attrs.field(default=(), converter=_libraries)
    facts: Facts | None = None
    layer_reference: LayerReference | None = None


@attrs.frozen
class SymbolsRequest:
    """For ``hpx_verify_symbols``: the symbols of a linked ELF and who built it.

    After a run's build, ``model`` and ``facts`` (the engine's own) are set; for
    ``hpx verify-kernels`` on a bare ELF they are None and ``expect`` holds what the user says
    must have linked (words the engine documents, such as ``portable``).
    """

    engine: str
    backend: str | None
    elf: Path
    symbols: frozenset[str]
    model: ModelInfo | None = None
    facts: Facts | None = None
    expect: frozenset[str] = frozenset()


@attrs.frozen
class SymbolFinding:
    """One conclusion drawn from the linked symbols (answer of ``hpx_verify_symbols``).

    A failed finding with ``fatal`` stops the run before anything is flashed or executed.
    """

    check: str
    passed: bool
    detail: str
    fatal: bool = True


@attrs.frozen
class ResultsRequest:
    """For ``hpx_result_extras``: the checked capture of a run and the engine's own facts."""

    engine: EngineSelection
    board: Board
    model: ModelInfo
    sources: SourceSet
    capture: Capture
    facts: Facts | None = None

    def facts_as(self, kind: type[T]) -> T:
        """The ``facts`` the engine put on its contribution, checked to be ``kind``."""
        return checked(self.facts, kind, "firmware facts")


@attrs.frozen
class ErrorRequest:
    """For ``hpx_explain_error``: an error the engine's glue reported in an ERROR record."""

    engine: EngineSelection
    model: ModelInfo
    code: int
    stage: str
    capture: Capture


@attrs.frozen
class Explanation:
    """Answer of ``hpx_explain_error``: the error in the engine's words, and what to do.

    ``arena``: set when the error means the buffer ``model.arena_size`` sizes is too small,
    to that buffer's name in the memory pass (``"arena"``); the core then measures what the
    model needs in a second run with a larger arena (the memory pass's ``<arena>.needed``, else
    ``<arena>.planned``) and says the number and the config line that fits it.
    """

    message: str
    hint: str
    arena: str | None = None


@attrs.frozen
class ReferenceOutput:
    """What the engine's host reference computed for one output the firmware sends.

    ``tensor`` is the index the firmware passes to ``hpx_report_output``; ``data`` holds the
    bytes in the order the device sends them (an engine whose device memory order differs from
    the host's reorders here); ``dtype`` is NumPy's name for the element type (``int8``,
    ``float32``, ...); ``source`` names the reference in a few words ("tflite-micro Python
    interpreter, same model and input bytes").
    """

    tensor: int
    dtype: str
    data: bytes
    source: str

    @property
    def elements(self) -> int:
        width = int("".join(c for c in self.dtype if c.isdigit()) or 8) // 8
        return len(self.data) // max(width, 1)


@attrs.frozen
class ResultExtras:
    """Answer of ``hpx_result_extras``: engine facts for the bundle's ``extra`` section.

    ``files`` are written into the bundle beside ``summary.json`` (name -> bytes; plain names,
    e.g. a trace file the firmware sent as FILE records). ``layer_check_note`` is what
    the bundle's ``layer_check`` says for a ``--check-layers`` run when the engine has no host
    reference of its own but hands the device's layer outputs to another tool (say, which files
    the engine's own inspector reads); None: the core's default sentence. ``reference_outputs``
    are the host's outputs for the device's: the core compares them (``profiling.
    output_tolerance``), and a run whose outputs differ beyond the tolerance is invalid.
    ``memory``: what the engine knows of its memory without the device (its compiler's static
    arenas), joined to what the memory pass measured.
    """

    values: Mapping[str, Json] = attrs.field(factory=dict)
    files: Mapping[str, bytes] = attrs.field(factory=dict)
    layer_check_note: str | None = None
    reference_outputs: tuple[ReferenceOutput, ...] = attrs.field(default=(), converter=_outputs)
    memory: MemoryFigures | None = None


def _samples(values: Iterable[Iterable[bytes]]) -> tuple[tuple[bytes, ...], ...]:
    return tuple(tuple(sample) for sample in values)


@attrs.frozen
class HostOutputsRequest:
    """For ``hpx_host_outputs``: samples a data set feeds the firmware (``hpx validate``),
    each the bytes of every input tensor in input order, to run through the engine's host
    reference. ``model_file`` is the file the firmware was built from (the corrected copy when
    the run made one); ``facts`` are the engine's own from generating that firmware."""

    engine: EngineSelection
    model: ModelInfo
    model_file: Path
    samples: tuple[tuple[bytes, ...], ...] = attrs.field(converter=_samples)
    facts: Facts | None = None

    def facts_as(self, kind: type[T]) -> T:
        """The ``facts`` the engine put on its contribution, checked to be ``kind``."""
        return checked(self.facts, kind, "firmware facts")


@attrs.frozen
class HostOutputs:
    """Answer of ``hpx_host_outputs``: per sample, in the request's order, every output's
    bytes in the order the device sends them (as ``ReferenceOutput.data``); ``source`` names
    the reference in a few words."""

    outputs: tuple[tuple[bytes, ...], ...] = attrs.field(converter=_samples)
    source: str


@attrs.frozen
class ManifestRequest:
    """For ``hpx_match_manifest``: a file the user passed as ``hpx compare --manifest``."""

    document: Json
    model: str | None
    base_sha256: str
    candidate_sha256: str


@attrs.frozen
class Region:
    """Layers of each side that are compared as one sum (e.g. a fused block and its parts)."""

    name: str
    base: tuple[int, ...] = attrs.field(converter=_ints)
    candidate: tuple[int, ...] = attrs.field(converter=_ints)


@attrs.frozen
class MatchManifest:
    """Which two models may be compared, and optionally which layers correspond."""

    base_model_sha256: str
    candidate_model_sha256: str
    layers: tuple[tuple[int, int], ...] = attrs.field(default=(), converter=_pairs)
    regions: tuple[Region, ...] = attrs.field(default=(), converter=_regions)

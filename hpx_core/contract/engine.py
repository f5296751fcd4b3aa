"""What an engine is (``hpx_engines``' answer) and the engine a run has selected."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

import attrs
from attrs import AttrsInstance

from hpx_core.errors import PluginError
from hpx_core.models.tflite_fields import check_fields

if TYPE_CHECKING:
    from hpx_core.sources.pins import PinSet

T = TypeVar("T")


def strs(values: Iterable[str]) -> tuple[str, ...]:
    """attrs converter (typed for mypy): the tuple a frozen record keeps."""
    return tuple(values)


def checked(value: object, kind: type[T], what: str) -> T:
    """``value``, if it is a ``kind``; a PluginError naming ``what`` if not."""
    if not isinstance(value, kind):
        raise PluginError(
            f"the {what} is a {type(value).__name__}, not a {kind.__name__}",
            "an engine gets back only what it handed to the core; check its hooks",
        )
    return value



@attrs.frozen
class EngineDescriptor:
    """An engine a plugin provides (answer of ``hpx_engines``).

    ``name`` is the value of ``engine.type``; ``model_formats`` the formats it runs (``tflite``
    is read by the core; any other by a plugin's ``hpx_read_model``); ``config_class`` the
    frozen attrs class of its ``engine.config`` section; ``pins`` its sources, read from the
    plugin's own package data with :func:`hpx_core.sources.load_pins`. The first backend is the
    default. ``model_fields`` are the model fields its tools require that older converters
    leave empty (:data:`hpx_core.models.tflite_fields.KNOWN_FIELDS`): when the model lacks one,
    the engine is given a corrected copy (``FirmwareRequest.model``), never the user's file.
    ``library_options`` names the ``engine.config`` fields that change the engine library
    (sources elsewhere, a kernel selection): the matrix plans one library per backend, CPU and
    toolchain and per value of these; None means any field may (each config variant its own).
    """

    name: str
    model_formats: tuple[str, ...] = attrs.field(converter=strs)
    config_class: type[AttrsInstance]
    summary: str = ""
    backends: tuple[str, ...] = attrs.field(default=(), converter=strs)
    pins: PinSet | None = None
    model_fields: tuple[str, ...] = attrs.field(default=(), converter=check_fields)
    library_options: tuple[str, ...] | None = None


@attrs.frozen
class EngineSelection:
    """The engine a run uses: its name, its backend and its validated ``engine.config``."""

    name: str
    backend: str | None
    config: AttrsInstance

    def config_as(self, kind: type[T]) -> T:
        """The ``engine.config`` object, checked to be the class the engine declared."""
        return checked(self.config, kind, f"engine.config of {self.name}")

"""The core's ``.tflite`` reader as a plugin: it answers ``hpx_read_model`` for a TFLite
flatbuffer, recognised by its file identifier (``TFL3`` at byte 4), not by the file's name, so
a renamed model is still read and another format's file is left to its own plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpx_core.contract import ModelRequest
from hpx_core.models.info import ModelInfo
from hpx_core.plugin_kit import hookimpl

FORMAT = "tflite"
IDENTIFIER = b"TFL3"


@hookimpl
def hpx_read_model(request: ModelRequest) -> ModelInfo | None:
    if request.data[4:8] != IDENTIFIER:
        return None
    # The reader loads the flatbuffers schema (hundreds of modules): only for a .tflite.
    from hpx_core.models.tflite_reader import read_tflite

    return read_tflite(request.data, request.path, request.sha256)


if TYPE_CHECKING:  # mypy checks the hook against the contract (hpx_core.engine_protocol)
    from hpx_core import engine_protocol as contract
    from hpx_core.default_plugins import tflite_format as this

    _reads: contract.ReadsItsOwnFormat = this

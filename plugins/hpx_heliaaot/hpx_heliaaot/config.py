"""The ``engine.config`` section of the ``helia-aot`` engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs

from hpx_core.sdk import FieldValueError

ENV = {"cmsis_nn_path": "CMSIS_NN_PATH"}
"""Environment variables that fill fields the config leaves unset."""

_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _c_identifier(_instance: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not _C_IDENTIFIER.fullmatch(value):
        raise FieldValueError(attribute.name, f"must be a C identifier, got {value!r}")


@attrs.frozen
class HeliaAotConfig:
    """How heliaAOT names the code it generates, and which ns-cmsis-nn it builds against.

    ``platform`` is the heliaAOT platform the code is generated for (default: the board's
    name); its CPU must be the board's. ``input``/``input_seed`` choose the input bytes.
    """

    cmsis_nn_path: Path | None = None
    prefix: str = attrs.field(default="hpx", validator=_c_identifier)
    module_name: str = attrs.field(default="hpx_model", validator=_c_identifier)
    platform: str | None = None
    input: str = "random"
    input_seed: int = 0

"""A plugin whose hook names its parameter otherwise than the hook: pluggy refuses it at load,
and a run of its engine must say which hook, which parameter and what to rename it to."""

from __future__ import annotations

from hpx_core.sdk import EngineDescriptor, FirmwareContribution, FirmwareRequest, hookimpl


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [EngineDescriptor("renamed", ("tflite",), dict)]


@hookimpl
def hpx_generate_firmware(req: FirmwareRequest) -> FirmwareContribution:
    raise NotImplementedError

"""What an ETDump adds to the firmware and the bundle: the third method, the ETDump pass, its
planned buffer, the runtime targets, and the words the bundle uses for it."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.etdump import LAYER_CHECK_NOTE, etdump_record, input_files, layer_check_note
from hpx_executorch.firmware import (
    ETDUMP_SYMBOL,
    etdump_data,
    executorch_firmware,
    glue_header,
    input_bytes,
)
from hpx_executorch.layers import layer_table
from hpx_executorch.library import RuntimeLibrary
from hpx_executorch.runtime_cmake import RuntimeOptions, runtime_cmakelists
from hpx_executorch.settings import Settings, etdump_mode, resolve

from hpx_core.boards import get_board
from hpx_core.contract import FirmwareContribution
from hpx_core.reading import load_model

from .conftest import TIER1

MODEL = load_model(TIER1 / "tier1_arm.pte")


def _settings(check_layers: str = "off", **config: object) -> Settings:
    return resolve(ExecutorchConfig(**config), "arm", MODEL, check_layers)  # type: ignore[arg-type]


def _runtime() -> RuntimeLibrary:
    return RuntimeLibrary(key="k", folder=Path("/nowhere"), archives=(), include_dirs=(),
                          built=False, seconds=0.0)


def test_the_layer_check_records_tensors_and_the_option_events_alone() -> None:
    assert etdump_mode(ExecutorchConfig(), "off") == "off"
    assert etdump_mode(ExecutorchConfig(etdump=True), "off") == "events"
    assert etdump_mode(ExecutorchConfig(), "first") == "tensors"
    assert etdump_mode(ExecutorchConfig(), "all") == "tensors"


def test_the_etdump_method_has_an_arena_of_its_own() -> None:
    header = glue_header(_settings("first"), layer_table(MODEL), 1)
    assert "HPX_ET_METHOD_ARENA_SIZE 65536u" in header  # the counted methods' arena as it was
    data = etdump_data(_settings("first"), "")
    assert "uint8_t hpx_et_etdump_method_arena[32768];" in data
    assert "uint8_t hpx_et_etdump_method_arena[64];" in etdump_data(_settings(), "")


def _glue(board: str, check_layers: str = "off", **config: object) -> FirmwareContribution:
    return executorch_firmware(MODEL, _settings(check_layers, **config),
                               layer_table(MODEL), _runtime(), get_board(board))


def test_the_pass_is_linked_always_and_switched_by_a_constant_of_the_same_size() -> None:
    """Same code, same layout: only the constant and the never-zeroed buffer change."""
    off, events, tensors = (_glue("qemu-m55"), _glue("qemu-m55", etdump=True),
                            _glue("qemu-m55", "first"))
    for glue in (off, events, tensors):
        assert glue.sources == ("hpx_et_runner.cpp", "hpx_et_etdump.cpp", "hpx_et_model.c")
    assert {k: v for k, v in off.files.items() if k != "hpx_et_model.c"} == {
        k: v for k, v in tensors.files.items() if k != "hpx_et_model.c"}
    for glue, mode in ((off, 0), (events, 1), (tensors, 2)):
        assert f"const uint32_t hpx_et_etdump_mode = {mode}u;" in glue.files["hpx_et_model.c"]
    assert ETDUMP_SYMBOL not in {buffer.symbol for buffer in off.buffers}
    assert "hpx_et_etdump_buffer[64];" in off.files["hpx_et_model.c"]


@pytest.mark.parametrize(("board", "uses", "section"), [
    ("qemu-m55", ("data",), '__attribute__((section(".noinit")))'),
    ("apollo510_evb", ("sram",), '__attribute__((section(".sram_bss")))'),
])
def test_the_etdump_buffer_is_planned_in_sram_or_noinit(board: str, uses: tuple[str, ...],
                                                        section: str) -> None:
    glue = _glue(board, etdump=True, etdump_buffer_size=160 * 1024)
    (buffer,) = (b for b in glue.buffers if b.symbol == ETDUMP_SYMBOL)
    assert (buffer.symbol, buffer.size, buffer.uses) == (ETDUMP_SYMBOL, 160 * 1024, uses)
    assert (f"{section} __attribute__((aligned(64))) uint8_t {ETDUMP_SYMBOL}[{160 * 1024}];"
            in glue.files["hpx_et_model.c"])


def test_a_buffer_etdumpgen_would_abort_on_is_refused_by_the_config() -> None:
    from hpx_core.sdk import FieldValueError

    with pytest.raises(FieldValueError):
        ExecutorchConfig(etdump_buffer_size=128 * 1024)


def test_the_runtime_builds_flatcc_from_a_copy_and_keeps_its_archive_in_the_build() -> None:
    options = RuntimeOptions("arm", False, (), ("-mcpu=cortex-m55",))
    assert {"etdump", "flatccrt"} <= set(options.targets())
    text = runtime_cmakelists(Path("/src/nsx"), Path("/src/cmsis6"), options, arm_module=None,
                              ns_root=None, flatcc_copy=Path("/tmp/b/flatcc"))
    assert 'set(HPX_FLATCC_COPY "/tmp/b/flatcc")' in text
    assert 'if(name STREQUAL "flatcc_ep")' in text  # the host flatcc's SOURCE_DIR
    assert '_add_subdirectory("${HPX_FLATCC_COPY}"' in text  # the target flatccrt
    assert ('flatccrt PROPERTIES ARCHIVE_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/hpx_flatcc" '
            "POSITION_INDEPENDENT_CODE OFF") in text
    assert text.count("function(add_subdirectory") == 1  # CMake keeps one previous definition


def test_the_bundle_says_what_the_etdump_holds_and_how_to_read_it() -> None:
    tensors = _settings("first")
    files = {"etdump.etdp": b"e" * 10, "etdump.debug.bin": b"d" * 64}
    record = etdump_record(tensors, files, "ticks")
    assert record["file"] == "etdump.etdp" and record["debug_buffer"] == "etdump.debug.bin"
    assert (record["bytes"], record["debug_bytes"]) == (10, 64)
    assert "debug_buffer_path='etdump.debug.bin'" in record["read_with"]
    assert layer_check_note(tensors, files) == LAYER_CHECK_NOTE
    assert "Inspector" in LAYER_CHECK_NOTE and "etdump.etdp" in LAYER_CHECK_NOTE
    events = _settings(etdump=True)
    record = etdump_record(events, {"etdump.etdp": b"e"}, "ticks")
    assert "debug_buffer" not in record and record["records"] == "events"
    assert layer_check_note(events, {"etdump.etdp": b"e"}) is None
    assert layer_check_note(tensors, {"etdump.etdp": b"e"}) is None  # the debug data is missing


def test_the_input_the_device_was_fed_lands_beside_the_etdump_in_logical_order() -> None:
    (tensor,) = MODEL.inputs
    values = np.load(io.BytesIO(input_files(MODEL)["input0.npy"]))
    assert values.shape == tuple(tensor.shape) and values.dtype == np.float32
    # the firmware holds the same values in the tensor's memory order (channels_last)
    assert tuple(tensor.dim_order) == (0, 2, 3, 1)
    assert values.transpose(0, 2, 3, 1).tobytes() == input_bytes(tensor)

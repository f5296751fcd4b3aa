"""What an ETDump adds to the firmware and the bundle: the third method, the ETDump pass, its
planned buffer, the runtime targets, and the words the bundle uses for it."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.etdump import LAYER_CHECK_NOTE, etdump_record, input_files, layer_check_note
from hpx_executorch.firmware import ETDUMP_SYMBOL, executorch_firmware, glue_header, input_bytes
from hpx_executorch.layers import layer_table
from hpx_executorch.library import RuntimeLibrary
from hpx_executorch.runtime_cmake import RuntimeOptions, runtime_cmakelists
from hpx_executorch.settings import DEFAULT_ETDUMP_BUFFER, Settings, etdump_mode, resolve

from hpx_core.boards import get_board
from hpx_core.models import load_model

from .conftest import TIER1

MODEL = load_model(TIER1 / "tier1_arm.pte")


def _settings(board: str, check_layers: str = "off", **config: object) -> Settings:
    return resolve(ExecutorchConfig(**config), "arm", MODEL, get_board(board),  # type: ignore[arg-type]
                   check_layers)


def _runtime() -> RuntimeLibrary:
    return RuntimeLibrary(key="k", folder=Path("/nowhere"), archives=(), include_dirs=(),
                          built=False, seconds=0.0)


def test_the_layer_check_records_tensors_and_the_option_events_alone() -> None:
    assert etdump_mode(ExecutorchConfig(), "off") == "off"
    assert etdump_mode(ExecutorchConfig(etdump=True), "off") == "events"
    assert etdump_mode(ExecutorchConfig(), "first") == "tensors"
    assert etdump_mode(ExecutorchConfig(), "all") == "tensors"


def test_the_etdump_method_has_an_arena_of_its_own() -> None:
    table = layer_table(MODEL)
    plain = glue_header(_settings("qemu-m55"), table, 1)
    assert "#define HPX_ET_ETDUMP 0" in plain and "HPX_ET_METHOD_ARENA_SIZE 65536u" in plain
    checked = glue_header(_settings("qemu-m55", "first"), table, 1)
    assert "#define HPX_ET_ETDUMP 1" in checked and "#define HPX_ET_ETDUMP_TENSORS 1" in checked
    assert "HPX_ET_METHOD_ARENA_SIZE 65536u" in checked  # the counted methods' arena as it was
    assert "HPX_ET_ETDUMP_METHOD_ARENA_SIZE 32768u" in checked
    assert f"HPX_ET_ETDUMP_BUFFER_SIZE {DEFAULT_ETDUMP_BUFFER}u" in checked


@pytest.mark.parametrize(("board", "uses", "section"), [
    ("qemu-m55", ("data",), '__attribute__((section(".noinit")))'),
    ("apollo510_evb", ("sram",), '__attribute__((section(".sram_bss")))'),
])
def test_the_etdump_buffer_is_planned_in_sram_never_zeroed(board: str, uses: tuple[str, ...],
                                               section: str) -> None:
    settings = _settings(board, etdump=True, etdump_buffer_size=160 * 1024)
    glue = executorch_firmware(MODEL, settings, layer_table(MODEL), _runtime(), get_board(board))
    (buffer,) = glue.buffers
    assert (buffer.symbol, buffer.size, buffer.uses) == (ETDUMP_SYMBOL, 160 * 1024, uses)
    assert "hpx_et_etdump.cpp" in glue.sources and "hpx_et_etdump.cpp" in glue.files
    assert f"#define HPX_ET_ETDUMP_SECTION {section}\n" in glue.files["hpx_et_glue.h"]
    assert ETDUMP_SYMBOL in glue.files["hpx_et_etdump.cpp"]


def test_without_an_etdump_the_firmware_is_the_measured_one_alone() -> None:
    glue = executorch_firmware(MODEL, _settings("qemu-m55"), layer_table(MODEL), _runtime(),
                               get_board("qemu-m55"))
    assert glue.buffers == () and "hpx_et_etdump.cpp" not in glue.files
    assert "hpx_et_etdump.h" in glue.files  # the runner is the same code in every build
    assert glue.sources == ("hpx_et_runner.cpp", "hpx_et_model.c")


def test_a_buffer_etdumpgen_would_abort_on_is_refused_by_the_config() -> None:
    from hpx_core import FieldValueError

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
    tensors = _settings("qemu-m55", "first")
    files = {"etdump.etdp": b"e" * 10, "etdump.debug.bin": b"d" * 64}
    record = etdump_record(tensors, files, "ticks")
    assert record["file"] == "etdump.etdp" and record["debug_buffer"] == "etdump.debug.bin"
    assert (record["bytes"], record["debug_bytes"]) == (10, 64)
    assert "debug_buffer_path='etdump.debug.bin'" in record["read_with"]
    assert layer_check_note(tensors, files) == LAYER_CHECK_NOTE
    assert "Inspector" in LAYER_CHECK_NOTE and "etdump.etdp" in LAYER_CHECK_NOTE
    events = _settings("qemu-m55", etdump=True)
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

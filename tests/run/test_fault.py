"""Fault decoding from a real FAULT record (captured from the fault fixture)."""

from __future__ import annotations

from pathlib import Path

from hpx_core.run.fault import describe_fault
from hpx_core.wire import Record, encode_record, parse_capture

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"


def test_undefined_instruction_fault_without_an_elf() -> None:
    fault = parse_capture((WIRE / "fault-qemu-m55.bin").read_bytes()).fault
    assert fault is not None
    report = describe_fault(fault, None)
    assert report.exception == "HardFault"
    assert report.reasons == ("UNDEFINSTR", "FORCED")
    assert report.function is None and report.fault_address is None
    assert f"PC 0x{fault.number('pc'):08x} (no symbol)" in report.message()


def test_bus_fault_address_is_reported_when_valid() -> None:
    fields: dict[str, int | str | bytes] = {
        "exc": 3,
        "pc": 0x100,
        "lr": 0x201,
        "xpsr": 0x01000000,
        "cfsr": (1 << 15) | (1 << 9),
        "hfsr": 1 << 30,
        "mmfar": 0,
        "bfar": 0x60000000,
        "exc_return": 0xFFFFFFF9,
        "sp": 0x213FFF90,
    }
    assert encode_record(0, "FAULT", fields).startswith(b"@HPX 0 FAULT exc=3 pc=0x00000100")
    report = describe_fault(Record(0, "FAULT", fields), None)
    assert report.reasons == ("PRECISERR", "BFARVALID", "FORCED")
    assert report.fault_address == 0x60000000
    assert "fault address 0x60000000" in report.message()

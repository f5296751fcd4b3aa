"""The device side of validation: samples written into the firmware's window, run, and the
outputs it sent back.

The firmware's ``hpx_validate_window`` is initialized data the emulated boards load in place
(hpx_validate.h: a header, then the samples). For each window the host writes a copy of the
ELF with the samples where the array's bytes are, and QEMU runs that copy: one build runs any
data set, no byte goes through the UART's slow receive side, and QEMU's loader is never asked
to write over the image's zero-filled memory (which it refuses). A data set larger than the
window runs as several windows, each one QEMU run; the stream of each is parsed and checked
like any other (checksums, order, the pass's record count).
"""

from __future__ import annotations

import struct
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from hpx_core.boards import Board
from hpx_core.errors import RunError
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.run.qemu import run_on_qemu
from hpx_core.wire.capture import Capture
from hpx_core.wire.parser import parse_capture

WINDOW_SYMBOL = "hpx_validate_window"
MAGIC = 0x56585048  # "HPXV", hpx_validate.h
VERSION = 1
HEADER = struct.Struct("<5I")
VOUT_CHUNK = 64  # bytes of output in one VOUT record (hpx_validate.c)


@attrs.frozen
class Window:
    """Where the firmware's window is in the ELF file, and how many samples of
    ``sample_bytes`` it holds."""

    offset: int
    size: int
    sample_bytes: int

    @property
    def capacity(self) -> int:
        return (self.size - HEADER.size) // self.sample_bytes


def find_window(elf: Path, sample_bytes: int) -> Window:
    """The window of a validation build; RunError for firmware built without the pass or a
    sample larger than the window."""
    found = [s for s in symbol_inventory(elf).symbols if s.name == WINDOW_SYMBOL]
    if not found:
        raise RunError(f"{elf.name} has no {WINDOW_SYMBOL}: it was not built for validation",
                       "run hpx validate, which builds its own firmware")
    window = Window(_file_offset(elf, found[0].address), found[0].size, sample_bytes)
    if window.capacity < 1:
        raise RunError(f"one sample is {sample_bytes:,} bytes; the firmware's validation "
                       f"window holds {window.size - HEADER.size:,}",
                       f"validate a model whose inputs fit in the window ({window.size:,} "
                       "bytes)")
    return window


def _file_offset(elf: Path, address: int) -> int:
    import lief

    binary = lief.ELF.parse(str(elf))
    if binary is None:
        raise RunError(f"cannot read the firmware ELF {elf}", "rebuild it with hpx validate")
    offset = binary.virtual_address_to_offset(address)
    if not isinstance(offset, int):
        raise RunError(f"{elf.name} holds no file bytes at 0x{address:08x}",
                       "rebuild it with hpx validate")
    return offset


def payload(samples: Sequence[Sequence[bytes]], first: int, sample_bytes: int) -> bytes:
    """The window's bytes: the header, then each sample's inputs back to back."""
    body = b"".join(b"".join(sample) for sample in samples)
    return HEADER.pack(MAGIC, VERSION, len(samples), sample_bytes, first) + body


@attrs.frozen
class WindowRun:
    """One run of a window: every sample's outputs (by the data set's index), the capture
    (the counted passes' records are in it) and QEMU's seconds."""

    outputs: dict[int, tuple[bytes, ...]]
    capture: Capture
    seconds: float


def run_window(board: Board, elf: Path, window: Window, samples: Sequence[Sequence[bytes]],
               first: int, outputs: int, timeout: float, *,
               progress: Callable[[int], None] | None = None,
               records_per_sample: int = 1) -> WindowRun:
    """Run ``samples`` (data set indexes from ``first``) through the firmware once;
    ``progress`` hears how many of them the device has answered as its records arrive
    (``records_per_sample`` VOUT records each)."""
    image = bytearray(elf.read_bytes())
    data = payload(samples, first, window.sample_bytes)
    image[window.offset:window.offset + len(data)] = data
    with tempfile.TemporaryDirectory(prefix="hpx-validate-") as folder:
        copy = Path(folder) / elf.name
        copy.write_bytes(image)
        run = run_on_qemu(board, copy, timeout=timeout,
                          on_output=None if progress is None
                          else _VoutCounter(progress, records_per_sample))
    if run.timed_out:
        raise RunError(f"the validation run of samples {first}-{first + len(samples) - 1} "
                       f"took more than {timeout:.0f} s", "give fewer samples (--limit), or a "
                       "smaller model")
    capture = parse_capture(run.stream)
    _check_ended(capture, first)
    return WindowRun(_outputs(capture, outputs), capture, run.seconds)


@attrs.define
class _VoutCounter:
    """Hears the stream as it comes and tells ``progress`` how many samples the device has
    answered (``per_sample`` VOUT records each; a line split between two looks counts at the
    second)."""

    progress: Callable[[int], None]
    per_sample: int
    records: int = 0
    tail: bytes = b""

    def __call__(self, new: bytes) -> None:
        text = self.tail + new
        cut = text.rfind(b"\n") + 1
        self.records += text[:cut].count(b" VOUT ")
        self.tail = text[cut:]
        self.progress(self.records // max(self.per_sample, 1))


def _check_ended(capture: Capture, first: int) -> None:
    if capture.status == 0:
        return
    error = capture.first("ERROR")
    said = (f" in {error.text('stage')} (code {error.number('code')})" if error is not None
            else "")
    raise RunError(f"the firmware failed{said} while validating the window from sample {first}",
                   "run hpx profile on the model first: it says what the engine reported")


def _outputs(capture: Capture, count: int) -> dict[int, tuple[bytes, ...]]:
    parts: dict[tuple[int, int], bytearray] = {}
    for record in capture.of("VOUT"):
        key = (record.number("sample"), record.number("tensor"))
        data = parts.setdefault(key, bytearray(record.number("size")))
        chunk = record.fields["hex"]
        assert isinstance(chunk, bytes)
        offset = record.number("offset")
        data[offset:offset + len(chunk)] = chunk
    samples = sorted({sample for sample, _ in parts})
    return {s: tuple(bytes(parts.get((s, t), b"")) for t in range(count)) for s in samples}

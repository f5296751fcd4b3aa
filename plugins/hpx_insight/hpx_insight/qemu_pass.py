"""The uncounted pass: the same ELF once more under QEMU, with hpx's plugin watching.

It runs after the timed run, as a run of its own, so nothing of the timed counts can move; under
the same ``-icount`` the guest executes the same instructions in the same order, which is why
the plugin's windows equal SysTick's spans. The firmware's stream is read only to be sure the
run ended as the timed one did.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from hpx_core.sdk import RunError, get_logger
from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import NO_PEER, check_load_segments, qemu_argv
from hpx_insight.caches import CacheSetup
from hpx_insight.markers import SYST_CVR, Markers, find_markers
from hpx_insight.plugin_build import plugin_library
from hpx_insight.raw import RawProfile, parse_raw

log = get_logger(__name__)


@attrs.frozen
class PassResult:
    """The plugin's profile, the stream the firmware sent, and what the pass took."""

    raw: RawProfile
    stream: bytes
    seconds: float


def _option(value: str) -> str:
    return value.replace(",", ",,")  # QEMU's option syntax doubles a literal comma


MAX_RANGES = 15
"""Named address ranges the plugin tells apart (one more region holds every other address)."""


@attrs.frozen
class NamedRange:
    """An address range the profile counts memory use in: a buffer, or a board region."""

    name: str
    start: int
    end: int


def board_ranges(board: Board, buffers: Sequence[NamedRange] = ()) -> tuple[NamedRange, ...]:
    """``buffers`` first (the first range holding an address wins), then the board's regions."""
    ranges = (*buffers, *(NamedRange(r.name, r.origin, r.origin + r.length)
                          for r in board.memory))
    if len(ranges) > MAX_RANGES:
        raise RunError(f"{len(ranges)} memory ranges to tell apart; the profile counts "
                       f"{MAX_RANGES}", "name fewer buffers")
    return ranges


def plugin_args(markers: Markers, ranges: Sequence[NamedRange], out: Path) -> list[str]:
    """The plugin's arguments: where to write, the markers, the ranges in order."""
    args = [f"out={_option(str(out))}", f"begin={markers.begin.arg()}",
            f"end={markers.end.arg()}", f"skip={markers.wrap_handler.arg()}",
            f"open=0x{markers.slot_open:x}:{markers.slots}", f"cvr=0x{SYST_CVR:x}"]
    args += [f"region=0x{r.start:x}:0x{r.end:x}" for r in ranges]
    return args


def run_instrumented(board: Board, elf: Path, ranges: Sequence[NamedRange], *,
                     static: Sequence[int] = (), timeout: float = 600.0,
                     cache: Path | None = None, caches: CacheSetup | None = None
                     ) -> PassResult:
    """Run ``elf`` on ``board`` with the plugin; the plugin's per-slot counts, memory use
    counted per range of ``ranges`` except for the ``static`` instructions' (their use follows
    from the code: :mod:`hpx_insight.static_access`), and the misses of ``caches``."""
    markers = find_markers(elf, board)
    library = plugin_library(cache)
    check_load_segments(board, elf)
    with tempfile.TemporaryDirectory(prefix="hpx-insight-") as folder:
        out = Path(folder) / "profile.txt"
        argv = qemu_argv(board, elf)
        args = plugin_args(markers, ranges, out) + (caches.args() if caches else [])
        if static:
            listed = Path(folder) / "static.txt"
            listed.write_text("".join(f"{a:x}\n" for a in static), encoding="ascii")
            args.append(f"static={_option(str(listed))}")
        spec = ",".join([f"file={_option(str(library))}", *args])
        argv += ["-plugin", spec]
        started = time.perf_counter()
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise RunError(f"the instruction-profile pass did not end within {timeout:.0f} s",
                           "the timed run ended: report this ELF") from None
        seconds = time.perf_counter() - started
        said = done.stderr.replace(NO_PEER, b"").decode("utf-8", "replace").strip()
        if done.returncode != 0 or not out.is_file():
            raise RunError(f"the instruction-profile pass failed (QEMU exit {done.returncode}): "
                           f"{(said.splitlines() or ['no message'])[-1]}",
                           "the timed run of the same ELF worked: report this ELF")
        raw = parse_raw(out.read_text(encoding="ascii", errors="replace"))
    log.info("instruction profile pass", board=board.name, seconds=round(seconds, 3),
             instructions=raw.total)
    return PassResult(raw, done.stdout, seconds)

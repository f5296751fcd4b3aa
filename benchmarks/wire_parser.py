"""Wire parser throughput, and the cost of a line that never ends.

Run: python benchmarks/wire_parser.py [--records N] [--chunk BYTES] [--unterminated MB]
A synthetic stream of a million layer records, built with the host encoder (byte-identical to
the firmware's), is fed to the streaming parser in UART-sized chunks, as a live capture would
be. Then ``--unterminated`` megabytes without a newline (a stuck link) are fed in 256-byte
chunks: the time until the parser refuses them (or, without a line limit, until all are fed).
"""

from __future__ import annotations

import argparse
import time

from hpx_core.errors import CaptureError
from hpx_core.wire import WireParser, encode_record


def synthetic_stream(layers: int, iterations: int) -> bytes:
    """START, CAL, LAYERINFO x layers, WHOLE x iterations, LAYER x layers x iterations,
    SUMMARY, END: the order the harness sends."""
    records: list[tuple[str, dict[str, int | str | bytes]]] = [
        (
            "START",
            {
                "v": 1,
                "board": "qemu-m55",
                "engine": "bench",
                "counter": "systick_icount",
                "units": "ticks",
                "iterations": iterations,
                "warmup": 0,
                "max_layers": layers,
            },
        ),
        ("CAL", {"repeats": 8, "min": 38, "max": 39, "sum": 305}),
    ]
    records += [
        ("LAYERINFO", {"idx": i, "name": f"layer_{i}", "op": "CONV_2D"}) for i in range(layers)
    ]
    records += [("WHOLE", {"iter": it, "raw": 90_000_000 + it}) for it in range(iterations)]
    records += [
        ("LAYER", {"iter": it, "idx": i, "raw": 1_000_000 + 7 * i + it, "calls": 1})
        for it in range(iterations)
        for i in range(layers)
    ]
    records.append(("SUMMARY", {"whole": iterations, "layer_records": layers * iterations}))
    records.append(("END", {"status": 0}))
    return b"".join(encode_record(seq, t, f) for seq, (t, f) in enumerate(records))


def unterminated(megabytes: float, chunk: int = 256) -> None:
    """Feed a START record, then ``megabytes`` without a newline; print how it ended."""
    start, _ = synthetic_stream(1, 1).split(b"\n", 1)
    wire = WireParser()
    wire.feed(start + b"\n")
    block = b"A" * chunk
    fed = 0
    started = time.process_time()
    outcome = "all fed, no error"
    try:
        while fed < megabytes * 1e6:
            wire.feed(block)
            fed += chunk
    except CaptureError as error:
        outcome = f"refused: {error.message}"
    cpu = time.process_time() - started
    print(f"unterminated line: {fed:,} of {megabytes * 1e6:,.0f} bytes fed in {chunk}-byte "
          f"chunks, {cpu:.3f} s CPU; {outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000, help="layer records")
    parser.add_argument("--chunk", type=int, default=4096, help="bytes per feed() call")
    parser.add_argument("--unterminated", type=float, default=4.0, help="MB without newline")
    args = parser.parse_args()
    unterminated(args.unterminated)
    layers = 100
    stream = synthetic_stream(layers, max(1, args.records // layers))
    wire = WireParser()
    started = time.perf_counter()
    cpu_started = time.process_time()
    for offset in range(0, len(stream), args.chunk):
        wire.feed(stream[offset : offset + args.chunk])
    capture = wire.close()
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    count = len(capture.records)
    print(
        f"{count:,} records ({len(stream) / 1e6:.1f} MB) in {seconds:.2f} s wall, {cpu:.2f} s "
        f"CPU: {count / seconds:,.0f} records/s wall ({count / cpu:,.0f} per CPU-second), "
        f"{len(stream) / seconds / 1e6:.1f} MB/s"
    )


if __name__ == "__main__":
    main()

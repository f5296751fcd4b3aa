"""Wire parser throughput: records per second on a synthetic stream of a million layer records.

Run: python benchmarks/wire_parser.py [--records N] [--chunk BYTES]
The stream is built with the host encoder (byte-identical to the firmware's) and fed to the
streaming parser in UART-sized chunks, as a live capture would be.
"""

from __future__ import annotations

import argparse
import time

from hpx_core.wire import WireParser, encode_record


def synthetic_stream(layers: int, iterations: int) -> bytes:
    """START, CAL, LAYERINFO x layers, LAYER x layers x iterations, END."""
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
    records += [
        ("LAYER", {"iter": it, "idx": i, "raw": 1_000_000 + 7 * i + it, "calls": 1})
        for it in range(iterations)
        for i in range(layers)
    ]
    records.append(("END", {"status": 0}))
    return b"".join(encode_record(seq, t, f) for seq, (t, f) in enumerate(records))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000, help="layer records")
    parser.add_argument("--chunk", type=int, default=4096, help="bytes per feed() call")
    args = parser.parse_args()
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

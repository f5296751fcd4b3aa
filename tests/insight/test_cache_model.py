"""The plugin's cache simulation (``plugin/hpx_cache.h``) against a plain least-recently-used
cache written here: the same misses, access by access, on traces that stream, loop, jump and
cross lines, so its fast path for the line touched last changes no count."""

from __future__ import annotations

import random
import subprocess
from collections import OrderedDict
from importlib import resources
from pathlib import Path

import pytest
from hpx_insight.plugin_build import host_compiler

HARNESS = r"""
#include <stdio.h>
#include "hpx_cache.h"
int main(int argc, char **argv) {
    cache_t geometry, c; /* the plugin makes its caches alone like its shared one */
    if (argc != 2 || cache_init(&geometry, argv[1]) != 0 || cache_like(&c, &geometry) != 0) {
        return 2;
    }
    unsigned long addr, bytes;
    while (scanf("%lx %lu", &addr, &bytes) == 2) {
        printf("%u\n", cache_access(&c, addr, bytes));
    }
    return 0;
}
"""


def _reference(size: int, ways: int, line: int, trace: list[tuple[int, int]]) -> list[int]:
    """Each access's missed lines in a set-associative LRU cache where every line allocates."""
    sets = size // (ways * line)
    lru: list[OrderedDict[int, None]] = [OrderedDict() for _ in range(sets)]
    out = []
    for addr, nbytes in trace:
        missed = 0
        for number in range(addr // line, (addr + nbytes - 1) // line + 1):
            held = lru[number % sets]
            if number in held:
                held.move_to_end(number)
                continue
            missed += 1
            if len(held) == ways:
                held.popitem(last=False)
            held[number] = None
        out.append(missed)
    return out


def _trace(seed: int) -> list[tuple[int, int]]:
    """Streams of 1- to 16-byte accesses, loops over a few buffers larger and smaller than the
    cache, and jumps, some across a line's end."""
    rng = random.Random(seed)
    trace: list[tuple[int, int]] = []
    bases = [0x2000_0000, 0x2001_0000, 0x0041_0000, 0x2000_0040]
    while len(trace) < 20_000:
        base = rng.choice(bases) + rng.randrange(0, 0x30000, 4)
        width = rng.choice((1, 2, 4, 8, 16))
        for k in range(rng.randrange(1, 400)):
            trace.append((base + k * rng.choice((width, width, 1, 3)), width))
    return trace


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cache-model")
    (folder / "main.c").write_text(HARNESS, encoding="utf-8")
    header = resources.files("hpx_insight") / "plugin" / "hpx_cache.h"
    (folder / "hpx_cache.h").write_bytes(header.read_bytes())
    program = folder / "cache_model"
    subprocess.run([host_compiler(), "-O2", "-std=c11", "-Wall", "-Werror", "-o",
                    str(program), str(folder / "main.c")], check=True, capture_output=True)
    return program


@pytest.mark.parametrize(("size", "ways", "line"), [(65536, 4, 32), (65536, 2, 32),
                                                    (1024, 1, 16), (256, 4, 32)])
def test_the_plugin_cache_misses_as_a_plain_lru_cache(harness: Path, size: int, ways: int,
                                                      line: int) -> None:
    trace = _trace(seed=size + ways + line)
    given = "".join(f"{addr:x} {nbytes}\n" for addr, nbytes in trace)
    done = subprocess.run([str(harness), f"{size}:{ways}:{line}"], input=given, text=True,
                          capture_output=True, check=True)
    misses = [int(x) for x in done.stdout.split()]
    expected = _reference(size, ways, line, trace)
    assert misses == expected
    assert 0 < sum(expected) < len(trace)  # the trace both hits and misses

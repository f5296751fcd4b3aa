"""Fuzz targets: hpx's readers of untrusted bytes, one entry each, and their seed inputs.

A target takes any bytes and must either succeed or raise an :class:`HpxError`; any other
exception is a finding. The same targets serve the coverage-guided fuzzer
(``tests/fuzz/run_atheris.py``, ``nox -s fuzz``), the fast sample of the default test session
and the replay of committed regression inputs (``tests/fixtures/fuzz/<target>/``).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import signal
import struct
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from types import FrameType

import attrs
from hpx_executorch.pte_reader import read_pte
from hpx_executorch.sidecar import parse_sidecar
from hpx_insight.calibrate import estimate_rows, fit_rows, parse_calibration
from hpx_insight.schemas import ESTIMATE_FILE
from tflitebuild import build_model

from hpx_core.boards import get_board
from hpx_core.config import ConfigDocument, ProfileConfig, walk_values
from hpx_core.errors import ResultsError
from hpx_core.models.tflite_reader import read_tflite
from hpx_core.results import measure
from hpx_core.results.bundle_schema import shape_problem
from hpx_core.user_files import strict_json
from hpx_core.wire import WireParser

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
REGRESSIONS = FIXTURES / "fuzz"
SIDECAR_SHA = "0" * 64  # seeds are rewritten to describe this program


@attrs.frozen
class Target:
    """One reader: ``run`` feeds it bytes; ``seeds`` are real inputs to start from."""

    name: str
    run: Callable[[bytes], None]
    seeds: Callable[[], list[bytes]]
    max_len: int  # the fuzzer's largest input: the largest seed, with room to grow


def _tflite(data: bytes) -> None:
    read_tflite(data, Path("fuzzed.tflite"), hashlib.sha256(data).hexdigest())


def _pte(data: bytes) -> None:
    read_pte(data, Path("fuzzed.pte"), hashlib.sha256(data).hexdigest())


def _sidecar(data: bytes) -> None:
    parse_sidecar(data, Path("fuzzed.pte.json"), "fuzzed.pte", SIDECAR_SHA)


def _config(data: bytes) -> None:
    """The typed structuring of a config tree (strict types, bounds, did-you-mean, origins),
    fed JSON trees: fast enough for a million inputs, where YAML parsing (ruamel.yaml, pure
    Python) allows a few dozen a second; ``config-yaml`` fuzzes that parsing on its own."""
    try:
        tree = json.loads(data)
    except ValueError:
        return  # not a tree: nothing of hpx's to reach
    if not isinstance(tree, dict):
        return
    document = ConfigDocument(Path("fuzzed.json"), tree)
    config = document.structure(ProfileConfig)
    for value in walk_values(config, document):
        str(value.value), value.origin


def _config_yaml(data: bytes) -> None:
    """YAML with positions and its bounds (size, nesting, aliases): the parse alone."""
    ConfigDocument.parse(data, Path("fuzzed.yaml"))


CALIBRATED_BOARD = "apollo510_evb"


def _calibration(data: bytes) -> None:
    """A calibration file's bytes as ``--calibration`` reads them, then priced as an
    estimate prices a layer."""
    costs = parse_calibration(data, Path("fuzzed.json"), CALIBRATED_BOARD)
    sum(cost * 1e6 for cost in costs.values())


def _estimate(data: bytes) -> None:
    """A bundle's ``cycle_estimate.json`` as verification reads it, then fitted as
    ``hpx calibrate`` fits it against a board that measured every layer at two cycles an
    instruction."""
    try:
        document = strict_json(data)
    except ValueError as error:
        raise ResultsError(f"{ESTIMATE_FILE} is not JSON ({error})", "as verification") from None
    problem = shape_problem(ESTIMATE_FILE, document)
    if problem is not None:
        raise ResultsError(problem, "as verification")
    medians = {layer["index"]: round(2 * sum(layer["counts"].values()))
               for layer in document["layers"]}
    rows = estimate_rows(document, medians, "fuzzed")
    if rows:
        fit_rows(CALIBRATED_BOARD, rows)


_RECORD = re.compile(rb"^(@HPX [^\n]*?) \*[0-9a-f]{8}$", re.MULTILINE)


def reseal(data: bytes) -> bytes:
    """``data`` with every record's checksum made right, so values reach the field checks."""
    return _RECORD.sub(lambda m: m.group(1) + b" *%08x" % zlib.crc32(m.group(1)), data)


def _wire(data: bytes) -> None:
    """The stream as sent, then resealed and fed in two parts; what parses is measured."""
    for stream in (data, reseal(data)):
        parser = WireParser()
        cut = len(stream) // 3
        parser.feed(stream[:cut])
        parser.feed(stream[cut:])
        capture = parser.close()
        if capture.status != 0:
            continue  # a failed run is judged, never measured (hpx_core.run.record)
        m = measure(capture, _board())
        (m.whole_median, m.layer_sum, m.calibration)  # noqa: B018  (what a bundle records)
        [(layer.median, layer.spread) for layer in m.layers]


@cache
def _board():  # type: ignore[no-untyped-def]
    return get_board("qemu-m55")


def _files(folder: Path, pattern: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted(folder.glob(pattern))]


def _sidecar_seeds() -> list[bytes]:
    """The exported sidecars, rewritten to describe the program the target names."""
    seeds = []
    for data in _files(FIXTURES / "executorch_tier1", "*.pte.json"):
        doc = json.loads(data)
        doc["pte_sha256"] = SIDECAR_SHA
        seeds.append(json.dumps(doc, indent=1).encode())
    return seeds


def _config_yaml_seeds() -> list[bytes]:
    return _files(FIXTURES / "fuzz_seeds", "*.yaml") + _files(REPO / "configs", "**/*.yaml")


def _config_seeds() -> list[bytes]:
    """The YAML seeds' trees, as JSON."""
    return [json.dumps(ConfigDocument.parse(data, Path("seed.yaml")).tree).encode()
            for data in _config_yaml_seeds()]


def _calibration_seeds() -> list[bytes]:
    from hpx_insight.calibrate import SCHEMA_ID
    from hpx_insight.classes import CLASSES

    costs = {name: 1.0 + i / 4 for i, name in enumerate(CLASSES)}
    document = {"schema": SCHEMA_ID, "model": "hpx-cycles 1", "board": CALIBRATED_BOARD,
                "costs": costs, "prior": costs, "layers": 12, "models": ["a", "b"],
                "leave_one_model_out": {"median_layer_error": 0.05, "model_errors": {"a": 0.1}}}
    return [json.dumps(document, indent=2).encode()]


def _estimate_seeds() -> list[bytes]:
    """Estimate documents of the shape a profile writes, with a few layers."""
    from hpx_insight.classes import CLASSES

    def slot(index: int) -> dict[str, object]:
        counts = {name: float(10 * (index + 2) + i) for i, name in enumerate(CLASSES)}
        return {"index": index, "name": f"layer {index}", "op": "CONV_2D",
                "instructions": sum(counts.values()), "estimated_cycles": 2.0 * sum(
                    counts.values()), "estimated_ms": 0.01, "classes": {
                    k: 2.0 * v for k, v in counts.items()}, "counts": counts}

    document = {"schema": "hpx.cycle-estimate/1", "model": "hpx-cycles 1",
                "board": CALIBRATED_BOARD, "source_board": "qemu-m55", "clock_hz": 96_000_000,
                "metric": "estimated_cycles", "calibration": None, "regions": {"itcm": "tcm"},
                "unmodelled": [], "layers": [slot(0), slot(1), slot(2)], "whole": slot(-1)}
    return [json.dumps(document, indent=1).encode()]


def _tflite_seeds() -> list[bytes]:
    """Small models of the features the MLPerf Tiny models lack, and the keyword spotter."""
    kws = REPO / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
    return [build_model(), build_model(external=(64, 4)), kws.read_bytes()]


TARGETS = {
    target.name: target
    for target in (
        Target("tflite", _tflite, _tflite_seeds, 65536),
        Target("pte", _pte, lambda: _files(FIXTURES / "pte", "*.pte"), 16384),
        Target("sidecar", _sidecar, _sidecar_seeds, 8192),
        Target("config", _config, _config_seeds, 8192),
        Target("config-yaml", _config_yaml, _config_yaml_seeds, 8192),
        Target("wire", _wire, lambda: _files(FIXTURES / "wire", "*.bin"), 8192),
        Target("calibration", _calibration, _calibration_seeds, 4096),
        Target("estimate", _estimate, _estimate_seeds, 16384),
    )
}


def regressions(target: str) -> list[Path]:
    """The committed inputs that once broke ``target`` (crashes and hangs the fuzzer found)."""
    folder = REGRESSIONS / target
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


_WORDS = [0, 1, 2, 4, 8, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
          0xFFFFFFFC, 0x10000]  # fmt: skip


def mutate(seed: bytes, rng: random.Random) -> bytes:
    """A few random edits of ``seed`` (bytes, words, cuts, inserts, deletions, repeats)."""
    data = bytearray(seed)
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["byte", "byte", "word", "word", "cut", "insert", "delete", "repeat"])
        pos = rng.randrange(len(data)) if data else 0
        if kind == "byte" and data:
            data[pos] = rng.randrange(256)
        elif kind == "word" and len(data) >= 4:
            pos = min(pos & ~3, len(data) - 4)
            struct.pack_into("<I", data, pos, rng.choice([*_WORDS, rng.getrandbits(32)]))
        elif kind == "cut":
            del data[pos:]
        elif kind == "insert":
            data[pos:pos] = rng.randbytes(rng.randint(1, 16))
        elif kind == "delete":
            del data[pos : pos + rng.randint(1, 64)]
        else:
            end = min(len(data), pos + rng.randint(1, 32))
            data[pos:pos] = data[pos:end] * rng.randint(2, 50)
    return bytes(data)


class Hang(BaseException):
    """Raised by the alarm: a reader looped far longer than any real model needs."""


@contextmanager
def hang_guard(seconds: float) -> Iterator[None]:
    def alarm(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"reader still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

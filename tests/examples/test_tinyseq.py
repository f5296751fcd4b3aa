"""The tinyseq example engine (examples/engines/tinyseq): its reader, host reference and glue,
and one end-to-end run on qemu-m55 from a fresh venv with hpx-core and hpx-tinyseq installed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hpx_core.contract import ModelRequest
from hpx_core.errors import ModelError

REPO = Path(__file__).resolve().parents[2]
ENGINE_DIR = REPO / "examples" / "engines" / "tinyseq"
EXAMPLE = ENGINE_DIR / "model.tseq"

try:
    import hpx_tinyseq  # noqa: F401  (installed: the distribution's own copy)
except ImportError:  # the engine is not installed here: import it from the source tree
    sys.path.insert(0, str(ENGINE_DIR))

from hpx_tinyseq import engine, glue, plugin  # noqa: E402
from hpx_tinyseq.model import Clamp, Dense, Relu, read_sequence, seeded_int8  # noqa: E402
from hpx_tinyseq.reference import host_outputs  # noqa: E402


def _request(path: Path, data: bytes) -> ModelRequest:
    return ModelRequest(path=path, data=data, sha256=hashlib.sha256(data).hexdigest())


# --- the reader -------------------------------------------------------------------------------


def test_example_model_reads_every_layer() -> None:
    model = read_sequence(EXAMPLE, EXAMPLE.read_bytes())
    assert model.names == ("fc1", "act1", "fc2", "act2", "fc3", "out", "head")
    assert [type(layer) for layer in model.layers] == [Dense, Relu, Dense, Relu, Dense, Clamp,
                                                        Dense]
    assert len(model.input) == 64 and model.input_seed == 3
    assert model.input == seeded_int8(3, "input", 64)
    fc1, head = model.layers[0], model.layers[-1]
    assert isinstance(fc1, Dense) and (fc1.inputs, fc1.units, fc1.shift) == (64, 48, 10)
    assert len(fc1.weights) == 48 * 64 and all(-127 <= w <= 127 for w in fc1.weights)
    assert isinstance(head, Dense) and head.inputs == 8 and head.units == 2
    assert head.weights[:4] == (3, -1, 4, -1) and head.bias == (8, -8)
    clamp = model.layers[5]
    assert isinstance(clamp, Clamp) and (clamp.low, clamp.high) == (-100, 100)


def test_the_hook_describes_the_example() -> None:
    info = plugin.hpx_read_model(request=_request(EXAMPLE, EXAMPLE.read_bytes()))
    assert info is not None and info.format == "tinyseq"
    assert [op.name for op in info.operators] == ["dense", "relu", "dense", "relu", "dense",
                                                  "clamp", "dense"]
    assert info.operators[0].macs == 48 * 64 and info.operators[0].params == 48 * 64 + 48
    assert info.outputs[0].shape == (2,) and info.inputs[0].shape == (64,)
    assert info.weight_bytes == sum(o.macs or 0 for o in info.operators) + 4 * (48 + 32 + 8 + 2)
    assert info.resolver_ops == ("dense", "relu", "clamp")


@pytest.mark.parametrize("name, data", [
    ("kernels.yaml", b"kernelbench: 1\ninput: [1, 4, 4, 2]\nkernels: []\n"),
    ("model.tflite", b"\x1c\x00\x00\x00TFL3" + bytes(64)),
    ("notes.txt", b"# tinyseq 1 is only a comment here\ninput 3\n"),
    ("empty.bin", b""),
    ("binary.bin", bytes(range(256))),
])
def test_files_of_others_are_not_read(name: str, data: bytes) -> None:
    assert plugin.hpx_read_model(request=_request(Path(name), data)) is None


def test_a_tinyseq_header_claims_a_file_of_any_name() -> None:
    info = plugin.hpx_read_model(request=_request(Path("m.txt"),
                                                  b"tinyseq 1\ninput 2\nrelu r\n"))
    assert info is not None and [op.name for op in info.operators] == ["relu"]


BROKEN = [
    ("", 1, "has no statements"),
    ("# only a comment\n\n", 1, "has no statements"),
    ("tinyseq 2\ninput 4\nrelu r\n", 1, "unsupported format version '2'"),
    ("model 1\n", 1, "the first statement must be `tinyseq 1`"),
    ("tinyseq 1\nrelu r\n", 2, "the second statement must be `input N"),
    ("tinyseq 1\ninput 0\nrelu r\n", 2, "the input length must be within [1, 4096], got 0"),
    ("tinyseq 1\ninput x\nrelu r\n", 2, "the input length must be an integer, got 'x'"),
    ("tinyseq 1\ninput 4 sed=1\nrelu r\n", 2, "unknown option 'sed' of `input`"),
    ("tinyseq 1\ninput 4\n", 2, "the model has no layers"),
    ("tinyseq 1\ninput 4\n\n# c\nconv c 3\n", 5, "unknown statement 'conv'"),
    ("tinyseq 1\ninput 4\nrelu\n", 3, "`relu` needs a layer name"),
    ("tinyseq 1\ninput 4\nrelu 9x\n", 3, "`relu` needs a layer name"),
    ("tinyseq 1\ninput 4\nrelu a\nrelu a\n", 4, "layer name 'a' is used twice (first on line 3)"),
    ("tinyseq 1\ninput 4\nclamp c 5 -5\n", 3, "clamp LOW (5) is above HIGH (-5)"),
    ("tinyseq 1\ninput 4\nclamp c -200 5\n", 3, "LOW must be within [-128, 127], got -200"),
    ("tinyseq 1\ninput 4\nclamp c 1\n", 3, "`clamp` takes a name, LOW and HIGH"),
    ("tinyseq 1\ninput 4\ndense d 2 seed=1\n", 3, "dense layer 'd' has no shift=K"),
    ("tinyseq 1\ninput 4\ndense d 2 shift=3\n", 3, "needs exactly one of seed=S and weights"),
    ("tinyseq 1\ninput 4\ndense d 2 shift=3 seed=1 weights=1\n", 3, "needs exactly one of"),
    ("tinyseq 1\ninput 4\ndense d 2 shift=99 seed=1\n", 3, "shift must be within [0, 24]"),
    ("tinyseq 1\ninput 4\ndense d 2 shift=1 weights=1,2,3\n", 3,
     "dense layer 'd' has 3 weights; 2 units over 4 inputs need 8"),
    ("tinyseq 1\ninput 2\ndense d 1 shift=1 weights=1,200\n", 3,
     "weights[1] must be within [-128, 127], got 200"),
    ("tinyseq 1\ninput 2\ndense d 1 shift=1 weights=1,,2\n", 3, "weights[1] must be an integer"),
    ("tinyseq 1\ninput 2\ndense d 2 shift=1 weights=1,2,3,4 bias=5\n", 3,
     "dense layer 'd' has 1 biases for 2 units"),
    ("tinyseq 1\ninput 2\ndense d 2 shift=1 seed=4 bias=5,5\n", 3, "bias=... goes with weights"),
    ("tinyseq 1\ninput 2\ndense d 2 shift=1 shift=2 seed=1\n", 3, "option 'shift' given twice"),
    ("tinyseq 1\ninput 2\ndense d 2 3 shift=1 seed=1\n", 3, "unexpected word '3'"),
    ("tinyseq 1\ninput 2\ninput 3\n", 3, "`input` may appear only once"),
    ("tinyseq 1\ninput 2\nrelu r\ndense d 0 shift=1 seed=1\n", 4, "units must be within"),
]


@pytest.mark.parametrize("text, line, message", BROKEN)
def test_a_broken_model_names_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(ModelError) as caught:
        plugin.hpx_read_model(request=_request(Path("m.tseq"), text.encode()))
    assert str(caught.value.args[0]).startswith(f"m.tseq:{line}: ")
    assert message in str(caught.value.args[0])


def test_undecodable_bytes_name_their_line() -> None:
    with pytest.raises(ModelError, match=r"^m\.tseq:3: not UTF-8 text"):
        read_sequence(Path("m.tseq"), b"tinyseq 1\ninput 2\nrelu \xff\n")


def test_too_many_layers_are_refused() -> None:
    text = "tinyseq 1\ninput 2\n" + "".join(f"relu r{i}\n" for i in range(241))
    with pytest.raises(ModelError, match=r"^m\.tseq:243: more than 240 layers"):
        read_sequence(Path("m.tseq"), text.encode())


# --- the host reference and the glue ----------------------------------------------------------


def test_reference_by_hand() -> None:
    model = read_sequence(Path("m.tseq"), (
        b"tinyseq 1\ninput 3 seed=9\n"
        b"dense d 2 shift=2 weights=1,2,3,-4,5,-6 bias=1,-1\n"
        b"relu r\nclamp c -1 1\n"))
    x = (10, -20, 30)
    d, r, c = host_outputs(model.layers, x)
    # d[0] = (1 + 10 - 40 + 90 + 2) >> 2 = 63 >> 2 = 15; d[1] = (-1 - 40 - 100 - 180 + 2) >> 2
    assert d.tolist() == [15, -80]
    assert r.tolist() == [15, 0] and c.tolist() == [1, 0]


def test_reference_saturates_and_rounds_half_up() -> None:
    model = read_sequence(Path("m.tseq"), (
        b"tinyseq 1\ninput 1\ndense d 4 shift=1 weights=127,-127,1,-1 bias=0,0,0,0\n"))
    (out,) = host_outputs(model.layers, (127,))
    # 16129 / 2 and -16129 / 2 saturate; 63.5 -> (127 + 1) >> 1 = 64 and -63.5 ->
    # (-127 + 1) >> 1 = -63: ties go up
    assert out.tolist() == [127, -128, 64, -63]


def test_glue_holds_the_reference_constants_and_crcs() -> None:
    model = read_sequence(EXAMPLE, EXAMPLE.read_bytes())
    outputs = host_outputs(model.layers, model.input)
    crcs = glue.expected_crcs(outputs)
    assert crcs == tuple(zlib.crc32(out.tobytes()) for out in outputs)
    attributes = {glue.WEIGHTS: '__attribute__((section(".hpx_qspi")))', glue.BIAS: "",
                  glue.ACTIVATIONS: '__attribute__((section(".hpx_dtcm_bss")))'}
    made = glue.make_glue(model, model.input, attributes, crcs, "unrolled")
    source = made.files["ts_model.c"]
    assert made.sources == ("ts_engine.c", "ts_backend_unrolled.c", "ts_model.c")
    assert "ts_backend_plain.c" not in made.files
    assert re.search(r"const int8_t ts_weights\[\d+\] __attribute__\(\(aligned\(16\)\)\) "
                     r'__attribute__\(\(section\("\.hpx_qspi"\)\)\) =', source)
    assert re.search(r"const int32_t ts_bias\[\d+\] __attribute__\(\(aligned\(4\)\)\) =",
                     source)
    assert 'int8_t ts_activations[128] __attribute__((aligned(16))) __attribute__((section(' \
        '".hpx_dtcm_bss")));' in source
    table = source.split("ts_expected_crc", 1)[1]
    assert [int(v) for v in re.findall(r"(\d+)u", table)] == list(crcs)
    weights = re.search(r"ts_weights\[\d+\][^{]*\{([^}]*)\}", source)
    assert weights is not None
    values = [int(v) for v in weights.group(1).split(",")]
    fc1 = model.layers[0]
    assert isinstance(fc1, Dense) and values[: len(fc1.weights)] == list(fc1.weights)


def test_layer_reference_chains_tensor_ids() -> None:
    model = read_sequence(EXAMPLE, EXAMPLE.read_bytes())
    outputs = host_outputs(model.layers, model.input)
    reference = engine.layer_reference(model.input, outputs)
    assert [layer.index for layer in reference.layers] == list(range(7))
    for index, layer in enumerate(reference.layers):
        assert layer.inputs[0].tensor == index and layer.outputs[0].tensor == index + 1
        assert layer.outputs[0].data == outputs[index].tobytes()
    assert reference.layers[0].inputs[0].data == np.asarray(model.input, np.int8).tobytes()


# --- end to end on qemu-m55 -------------------------------------------------------------------

TOOLS = ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A fresh venv holding hpx-core and hpx-tinyseq (not editable: package data as shipped),
    the `hpx` in it, and an environment with a private cache."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
    root = tmp_path_factory.mktemp("tinyseq-e2e")
    venv.EnvBuilder(with_pip=True).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(REPO),
                          str(ENGINE_DIR)], capture_output=True, text=True, check=False)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    env = {**os.environ, "HPX_CACHE_DIR": str(root / "cache"), "COLUMNS": "200",
           "GIT_CONFIG_GLOBAL": str(root / "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("HPX_DISABLE_PLUGINS", None)
    yield root / "venv" / "bin" / "hpx", env


def _hpx(hpx: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(hpx), *args], capture_output=True, text=True, env=env,
                          check=False, cwd=REPO, timeout=900)


def _bundle(folder: Path) -> Path:
    (bundle,) = [p for p in folder.iterdir() if (p / "manifest.json").is_file()]
    return bundle


@pytest.mark.emulated
def test_profile_on_qemu_checks_every_layer_and_compares_backends(
        installed: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    hpx, env = installed
    plugins = _hpx(hpx, env, "plugins")
    assert plugins.returncode == 0 and "tinyseq" in plugins.stdout, plugins.stdout
    assert "skipped plugin" not in plugins.stderr, plugins.stderr
    bundles = {}
    for backend in ("plain", "unrolled"):
        out = tmp_path / backend
        run = _hpx(hpx, env, "profile", str(EXAMPLE.relative_to(REPO)), "--engine", "tinyseq",
                   "--backend", backend, "--board", "qemu-m55", "--check-layers",
                   "--output-dir", str(out), "--iterations", "2", "--warmup", "0")
        assert run.returncode == 0, run.stdout + run.stderr
        assert "layer check against the host (7 exact)" in run.stdout, run.stdout
        bundle = _bundle(out)
        verify = _hpx(hpx, env, "results", "verify", str(bundle))
        assert verify.returncode == 0, verify.stdout + verify.stderr
        summary = json.loads((bundle / "summary.json").read_text())
        assert summary["status"] == "complete" and summary["validity"] == "valid"
        check = summary["layer_check"]
        assert check["exact"] is True and check["counts"]["exact"] == 7
        assert [layer["status"] for layer in check["layers"]] == ["exact"] * 7
        assert summary["outputs"]["exact"] is True and summary["outputs"]["passed"] is True
        assert summary["identity"]["backend"] == backend
        assert [c["passed"] for c in summary["extra"]["kernel_checks"]] == [True, True]
        assert [layer["name"] for layer in summary["measurement"]["layers"]] == [
            "fc1", "act1", "fc2", "act2", "fc3", "out", "head"]
        bundles[backend] = bundle
    compare = _hpx(hpx, env, "compare", str(bundles["plain"]), str(bundles["unrolled"]),
                   "--output-dir", str(tmp_path / "compare"))
    assert compare.returncode == 0, compare.stdout + compare.stderr
    row = next(line for line in compare.stdout.splitlines()
               if re.match(r"\W*backend\W", line))
    assert re.search(r"\bplain\b.*\bunrolled\b", row), row
    dimensions = json.loads((tmp_path / "compare" / "comparison.json").read_text())["dimensions"]
    backend_row = next(d for d in dimensions if d["name"] == "backend")
    assert (backend_row["base"], backend_row["candidate"]) == ("plain", "unrolled")


@pytest.mark.emulated
def test_model_location_moves_the_weights(installed: tuple[Path, dict[str, str]],
                                          tmp_path: Path) -> None:
    hpx, env = installed
    where = {}
    for location, arena in (("code", "sram"), ("flash", "tcm")):
        config = tmp_path / f"{location}.yaml"
        config.write_text(f"model:\n  path: {EXAMPLE}\n  location: {location}\n"
                          f"  arena_location: {arena}\nengine:\n  type: tinyseq\n")
        built = _hpx(hpx, env, "build", "-c", str(config), "--board", "qemu-m55",
                     "--output-dir", str(tmp_path / location), "--jobs", "1")
        assert built.returncode == 0, built.stdout + built.stderr
        placement = json.loads((_bundle(tmp_path / location) / "placement.json").read_text())
        where[location] = {b["buffer"]["symbol"]: b["region"] for b in placement["buffers"]}
    assert where["code"] == {"ts_weights": "ITCM", "ts_bias": "ITCM", "ts_activations": "SRAM"}
    assert where["flash"] == {"ts_weights": "QSPI", "ts_bias": "QSPI", "ts_activations": "DTCM"}

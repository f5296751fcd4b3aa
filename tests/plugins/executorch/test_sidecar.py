"""The ``<model>.pte.json`` sidecar: bound to its PTE by SHA-256, defaults only."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hpx_executorch.providers import needs_ns_ops, portable_ops
from hpx_executorch.sidecar import SCHEMA, read_sidecar, sidecar_of, sidecar_path
from ptebuild import build_program, sample_spec

from hpx_core.errors import ConfigError
from hpx_core.reading import load_model


@pytest.fixture
def pte(tmp_path: Path) -> Path:
    path = tmp_path / "tier1.pte"
    path.write_bytes(build_program(sample_spec()))
    return path


def _manifest(pte: Path, **overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "pte_sha256": hashlib.sha256(pte.read_bytes()).hexdigest(),
        "kernel_provider": "ns",
        "requires_ns_ops": True,
        "planned_arena_size": 98304,
        "inputs": [{"shape": [1, 16, 32, 32], "dtype": "FLOAT", "size_bytes": 65536}],
        "outputs": [{"shape": [1, 16, 32, 32], "dtype": "FLOAT", "size_bytes": 65536}],
        "operators": {
            "cortex_m": ["cortex_m::dequantize_per_tensor.out"],
            "cortex_m_ns": ["cortex_m_ns::quantized_sub.out"],
            "portable": ["aten::leaky_relu.out"],
        },
    }
    doc.update(overrides)
    return doc


def _write(pte: Path, doc: object) -> Path:
    path = sidecar_path(pte)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _sha(pte: Path) -> str:
    return hashlib.sha256(pte.read_bytes()).hexdigest()


def test_sidecar_path_appends_json(pte: Path) -> None:
    assert sidecar_path(pte).name == "tier1.pte.json"


def test_no_sidecar(pte: Path) -> None:
    assert read_sidecar(pte, _sha(pte)) is None
    assert sidecar_of(load_model(pte)) is None


def test_verified_sidecar_is_typed(pte: Path) -> None:
    _write(pte, _manifest(pte))
    info = load_model(pte)
    sidecar = sidecar_of(info)
    assert sidecar is not None
    assert sidecar.portable_ops == portable_ops(info) == ("aten::leaky_relu.out",)
    assert sidecar.kernel_provider == "ns" and sidecar.requires_ns_ops and needs_ns_ops(info)
    assert sidecar.planned_arena_size == 98304
    assert [t.size_bytes for t in (*sidecar.inputs, *sidecar.outputs)] == [65536] * 2


def test_corrupted_hash_is_refused_with_a_hint(pte: Path) -> None:
    doc = _manifest(pte)
    doc["pte_sha256"] = doc["pte_sha256"][:-1] + ("0" if doc["pte_sha256"][-1] != "0" else "1")
    _write(pte, doc)
    with pytest.raises(ConfigError, match="describes a different program") as err:
        sidecar_of(load_model(pte))
    assert "re-export" in err.value.hint


def test_sidecar_of_another_file_is_refused(pte: Path) -> None:
    _write(pte, _manifest(pte))
    pte.write_bytes(pte.read_bytes() + b"\0")  # the program changed after export
    with pytest.raises(ConfigError) as err:
        sidecar_of(load_model(pte))
    assert err.value.hint


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"schema": "something/2"}, "unsupported sidecar schema"),
        ({"kernel_provider": "cmsis"}, "kernel_provider"),
        ({"requires_ns_ops": "false"}, "requires_ns_ops"),
        ({"planned_arena_size": -1}, "planned_arena_size"),
        ({"planned_arena_size": True}, "planned_arena_size"),
        ({"inputs": [{"size_bytes": 0}]}, "size_bytes"),
        ({"inputs": ["x"]}, "inputs"),
        ({"outputs": [{"shape": ["a"]}]}, "shape"),
        ({"operators": {"portable": "aten::mean.out"}}, "operators.portable"),
        ({"operators": []}, "operators"),
    ],
)
def test_malformed_fields_are_config_errors(
    pte: Path, change: dict[str, Any], message: str
) -> None:
    _write(pte, _manifest(pte, **change))
    with pytest.raises(ConfigError, match=message) as err:
        read_sidecar(pte, _sha(pte))
    assert err.value.hint


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", "\udcff"])
def test_unreadable_sidecar(pte: Path, text: str) -> None:
    sidecar_path(pte).write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(ConfigError) as err:
        read_sidecar(pte, _sha(pte))
    assert err.value.hint


def test_optional_fields_default(pte: Path) -> None:
    _write(pte, {"schema": SCHEMA, "pte_sha256": _sha(pte)})
    sidecar = read_sidecar(pte, _sha(pte))
    assert sidecar is not None
    assert sidecar.kernel_provider is None and not sidecar.requires_ns_ops
    assert sidecar.portable_ops == () and sidecar.planned_arena_size is None


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"planned_arena_size": 1' + "0" * 5000 + "}"],
    ids=["100000-levels", "5000-digit-int"],
)
def test_json_python_refuses_to_decode_is_a_config_error(pte: Path, text: str) -> None:
    sidecar_path(pte).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="unreadable PTE sidecar") as err:
        read_sidecar(pte, _sha(pte))
    assert err.value.hint and "\n" not in err.value.message

"""The host reference outputs come from the hpx cache on a second run, keyed by model and input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_tflm_family import InputSpec, host_outputs, input_bytes
from hpx_tflm_family import reference as reference_module
from hpx_tflm_family.reference_cache import OUTPUTS, entry_name, interpreter_version

from hpx_core.reading import load_model

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path))
    return tmp_path / OUTPUTS.name


def test_second_call_reads_the_cache_not_the_interpreter(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model, data = load_model(KWS), KWS.read_bytes()
    inputs = input_bytes(InputSpec.parse("random"), model)
    first = host_outputs(data, inputs, model)
    assert [p.name for p in cache.iterdir()] == [f"{entry_name(data, inputs)}.json"]
    assert entry_name(data, inputs).endswith(f"-{interpreter_version()}")

    def refuse(*_args: object) -> tuple[bytes, ...]:
        raise AssertionError("the interpreter ran although the outputs were cached")

    monkeypatch.setattr(reference_module, "interpret", refuse)
    assert host_outputs(data, inputs, model) == first
    zeros = input_bytes(InputSpec.parse("zeros"), model)
    with pytest.raises(AssertionError, match="interpreter ran"):
        host_outputs(data, zeros, model)  # another input is another entry


def test_a_damaged_entry_is_computed_again(cache: Path) -> None:
    model, data = load_model(KWS), KWS.read_bytes()
    inputs = input_bytes(InputSpec.parse("zeros"), model)
    expected = reference_module.interpret(data, inputs, model)
    cache.mkdir(parents=True)
    (cache / f"{entry_name(data, inputs)}.json").write_text("{not json", encoding="utf-8")
    assert host_outputs(data, inputs, model) == expected
    assert host_outputs(data, inputs, model) == expected
    assert not [p for p in cache.iterdir() if p.name.startswith(".tmp-")]


def test_an_edited_reference_or_input_is_made_again(cache: Path) -> None:
    """Editing a kept host output (or the kept random inputs) cannot make a wrong answer read
    as right: the seal fails and the document is made again from its inputs."""
    import base64
    import json

    from hpx_tflm_family.inputs import RANDOM_INPUTS

    model, data = load_model(KWS), KWS.read_bytes()
    inputs = input_bytes(InputSpec.parse("random", 3), model)
    expected = host_outputs(data, inputs, model)
    for folder in (cache, cache.parent / RANDOM_INPUTS.name):
        (kept,) = folder.glob("*.json")
        sealed = json.loads(kept.read_text(encoding="utf-8"))
        blob = bytearray(base64.b64decode(sealed["document"]["blobs"][0]))
        blob[0] ^= 0x55
        sealed["document"]["blobs"][0] = base64.b64encode(bytes(blob)).decode()
        kept.write_text(json.dumps(sealed), encoding="utf-8")
    assert input_bytes(InputSpec.parse("random", 3), model) == inputs
    assert host_outputs(data, inputs, model) == expected

"""The kernelbench hooks that need no board: config, symbols, error codes, result extras."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("hpx_kernelbench")

from hpx_kernelbench.results import KernelbenchFacts, explain, reference_output
from hpx_kernelbench.symbols import verify_symbols

from hpx_core.config.validate import validate_config
from hpx_core.errors import ConfigError
from hpx_core.results.outputs import check_outputs

OPS = ["conv2d", "fully_connected"]
PORTABLE = {"kb_conv2d_s8", "kb_fully_connected_s8", "kb_requantize"}
CMSIS = {"arm_convolve_wrapper_s8", "arm_fully_connected_s8", "arm_vector_sum_s8"}


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "hpx.yaml"
    path.write_text("engine:\n  type: kernelbench\n  config:\n" + body, encoding="utf-8")
    return path


def test_config_defaults_typos_and_the_cross_field_rule(tmp_path: Path) -> None:
    config = validate_config(_config(tmp_path, "    seed: 3\n")).engine_config
    assert (config.seed, config.activation_min, config.activation_max) == (3, -128, 127)  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="did you mean 'seed'"):
        validate_config(_config(tmp_path, "    sed: 3\n"))
    with pytest.raises(ConfigError, match=r"hpx.yaml:5:21: .*within \[-128, 127\]"):
        validate_config(_config(tmp_path, "    seed: 3\n    activation_max: 300\n"))
    path = _config(tmp_path, "    activation_min: 10\n    activation_max: -10\n")
    with pytest.raises(ConfigError) as caught:
        validate_config(path)
    assert caught.value.message.startswith(f"{path}:4:21: engine.config.activation_min: ")
    assert "above activation_max (-10)" in caught.value.message


def test_symbols_name_the_backend_that_linked() -> None:
    assert all(f.passed for f in verify_symbols("portable", PORTABLE, OPS))
    assert all(f.passed for f in verify_symbols("cmsis_nn", CMSIS, OPS))
    assert all(f.passed for f in verify_symbols("ns", CMSIS | {"arm_convolve_weight_sum"}, OPS))
    wrong = {f.check: f for f in verify_symbols("portable", CMSIS, OPS)}
    assert not wrong["portable kernels linked"].passed
    assert "kb_conv2d_s8" in wrong["portable kernels linked"].detail
    arm_for_ns = [f for f in verify_symbols("ns", CMSIS, OPS) if not f.passed]
    assert [f.check for f in arm_for_ns] == ["ns-cmsis-nn weight-sum entry point linked"]
    ns_for_arm = [f for f in verify_symbols("cmsis_nn", CMSIS | {"arm_convolve_weight_sum"},
                                             OPS) if not f.passed]
    assert [f.check for f in ns_for_arm] == ["Arm CMSIS-NN, not ns-cmsis-nn"]
    both = verify_symbols("cmsis_nn", CMSIS | PORTABLE, ["fully_connected"])
    assert [f.check for f in both if not f.passed] == ["no portable kernel linked"]


def test_error_codes_name_the_layer() -> None:
    names = ["stem", "head"]
    init = explain(1001, "init", "cmsis_nn", names)
    assert init is not None and "refused layer 'head' at init" in init.message
    run = explain(2000, "invoke", "ns", names)
    assert run is not None and "ns kernel of layer 'stem'" in run.message and run.hint
    assert explain(1, "finish", "portable", names) is not None
    assert explain(2002, "invoke", "portable", names) is None  # no such layer
    assert explain(7, "init", "portable", names) is None


def test_the_reference_output_goes_to_the_core_as_int8() -> None:
    facts = KernelbenchFacts("portable", 5, ("a", "b"), "lib", "key", b"\x01\x7f")
    reference = reference_output(facts)
    assert (reference.tensor, reference.dtype, reference.data) == (0, "int8", b"\x01\x7f")
    verdict = check_outputs({0: b"\x01\x80"}, [reference], None)
    assert verdict is not None and not verdict.passed and verdict.tensors[0].max_abs_diff == 255

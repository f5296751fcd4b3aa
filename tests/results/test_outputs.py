"""The core's output check: exact for integers, a documented tolerance for floats, a
configured bound for either; what a bundle records reads back the same."""

from __future__ import annotations

import struct
import sys

import pytest

from hpx_core.contract import ReferenceOutput
from hpx_core.results.bundle_schema import SCHEMAS, schema_problem
from hpx_core.results.outputs import (
    FLOAT_ATOL,
    FLOAT_RTOL,
    NO_RESULT_EXTRAS,
    OutputMismatchError,
    OutputsUnchecked,
    check_outputs,
    outputs_from_json,
    outputs_word,
    unchecked_note,
    verdict_from_json,
)

INTS = bytes([1, 0xFF, 7, 100])  # int8: 1, -1, 7, 100


def _int8(data: bytes = INTS) -> ReferenceOutput:
    return ReferenceOutput(0, "int8", data, "test reference")


def _floats(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def test_equal_bytes_are_exact() -> None:
    verdict = check_outputs({0: INTS}, [_int8()], None)
    assert verdict is not None and verdict.exact and verdict.passed
    assert verdict.sentence() == "outputs: exact against the test reference"


def test_no_reference_means_no_verdict() -> None:
    assert check_outputs({0: INTS}, [], None) is None


def test_an_integer_output_off_by_one_step_fails_unless_tolerated() -> None:
    moved = bytes([1, 0xFF, 9, 0x81])  # 7 -> 9 (2 steps), 100 -> -127 (227 steps)
    verdict = check_outputs({0: moved}, [_int8()], None)
    assert verdict is not None and not verdict.passed
    (tensor,) = verdict.tensors
    assert (tensor.mismatched, tensor.beyond, tensor.max_abs_diff) == (2, 2, 227.0)
    assert "OUTPUTS DIFFER" in verdict.sentence() and "2 of 4 elements" in verdict.sentence()
    tolerated = check_outputs({0: moved}, [_int8()], 227.0)
    assert tolerated is not None and tolerated.passed and not tolerated.exact
    assert "within" in tolerated.sentence()
    assert check_outputs({0: moved}, [_int8()], 226.0).passed is False  # type: ignore[union-attr]


def test_floats_pass_within_the_default_tolerance_and_fail_beyond_it() -> None:
    host = _floats(1.0, -200.0, 0.0)
    near = _floats(1.0 + FLOAT_RTOL / 2, -200.0 * (1 + FLOAT_RTOL / 2), FLOAT_ATOL / 2)
    far = _floats(1.0 + 3 * FLOAT_RTOL, -200.0, 0.0)
    reference = ReferenceOutput(0, "float32", host, "host")
    assert check_outputs({0: near}, [reference], None).passed  # type: ignore[union-attr]
    verdict = check_outputs({0: far}, [reference], None)
    assert verdict is not None and not verdict.passed and verdict.tensors[0].beyond == 1


def test_a_nan_or_a_missing_output_never_passes() -> None:
    reference = ReferenceOutput(0, "float32", _floats(1.0, 2.0), "host")
    nan = check_outputs({0: _floats(1.0, float("nan"))}, [reference], 1e9)
    assert nan is not None and not nan.passed and nan.tensors[0].max_abs_diff is None
    missing = check_outputs({}, [reference], None)
    assert missing is not None and not missing.passed and not missing.tensors[0].sent
    short = check_outputs({0: _floats(1.0)}, [reference], None)
    assert short is not None and not short.tensors[0].sent


def test_the_recorded_verdict_reads_back_and_words_its_error() -> None:
    verdict = check_outputs({0: bytes([1, 0xFF, 8, 100])}, [_int8()], None)
    assert verdict is not None
    again = verdict_from_json(verdict.to_json())
    assert again == verdict
    error = verdict.error("bundle-dir")
    assert isinstance(error, OutputMismatchError) and error.exit_code == 4
    assert "output 0: 1 of 4 elements differ, largest by 1" in error.message
    assert "bundle-dir" in error.hint and "profiling.output_tolerance" in error.hint
    assert verdict_from_json({"old": "shape"}) is None


def test_outputs_not_checked_read_back_and_never_read_as_passed() -> None:
    unchecked = OutputsUnchecked(NO_RESULT_EXTRAS)
    recorded = unchecked.to_json()
    assert recorded == {"checked": False, "reason": NO_RESULT_EXTRAS}
    assert outputs_from_json(recorded, complete=True) == unchecked
    assert unchecked.sentence() == f"outputs: NOT CHECKED: {NO_RESULT_EXTRAS}"
    assert outputs_word(unchecked) == "not checked"
    note = unchecked_note("candidate", unchecked)
    assert note is not None and note.startswith("the candidate's outputs: NOT CHECKED")
    assert "hpx_result_extras" in note


def test_a_bundle_that_recorded_nothing_reads_as_unknown_unless_it_failed() -> None:
    unknown = outputs_from_json(None, complete=True)
    assert isinstance(unknown, OutputsUnchecked) and not unknown.known
    assert outputs_word(unknown) == "unknown"
    assert unknown.sentence().startswith("outputs: unknown")
    assert outputs_from_json(None, complete=False) is None  # a failed run: nothing came


def test_a_verdict_records_that_it_was_checked_and_old_verdicts_still_read() -> None:
    verdict = check_outputs({0: INTS}, [_int8()], None)
    assert verdict is not None and verdict.to_json()["checked"] is True
    old = {k: v for k, v in verdict.to_json().items() if k != "checked"}
    assert outputs_from_json(old, complete=True) == verdict
    assert outputs_word(verdict) == "exact" and unchecked_note("base", verdict) is None


@pytest.mark.parametrize(("outputs", "problem"), [
    ({"checked": False, "reason": "why"}, None),
    ({"checked": False}, "'reason' is a required property"),
    ({"checked": False, "reason": 3}, "3 is not of type 'string'"),
    ({"checked": True, "reason": "why"}, "'reference' is a required property"),
])
def test_the_schema_takes_either_state_and_refuses_half_of_one(
        outputs: dict[str, object], problem: str | None) -> None:
    schema = SCHEMAS["summary.json"]["else"]["else"]["properties"]["outputs"]
    found = schema_problem(schema, outputs)
    assert found is None if problem is None else problem in (found or ""), found


def test_equal_outputs_are_compared_without_numpy() -> None:
    import subprocess

    code = ("import sys; from hpx_core.contract import ReferenceOutput; "
            "from hpx_core.results.outputs import check_outputs; "
            "r = ReferenceOutput(0, 'float32', b'1234', 'h'); "
            "assert check_outputs({0: b'1234'}, [r], None).exact; "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize(("dtype", "elements"), [("int8", 8), ("int16", 4), ("float32", 2),
                                                 ("uint32", 2)])
def test_a_reference_counts_its_elements(dtype: str, elements: int) -> None:
    assert ReferenceOutput(0, dtype, bytes(8), "h").elements == elements

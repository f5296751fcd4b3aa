"""The element budget that bounds how much work a file can ask a reader to do."""

from __future__ import annotations

import pytest

from hpx_core.errors import ModelError
from hpx_core.models.guard import Budget, malformed


def test_budget_grows_with_the_file_and_runs_out() -> None:
    budget = Budget(1000, "m.tflite", "TFLite model")
    assert budget.count(10) == 10
    total = budget.remaining
    assert total > 1000  # a real file's elements always fit
    with pytest.raises(ModelError, match="claims 1000000 elements") as err:
        budget.count(1_000_000)
    assert "re-export" in err.value.hint


def test_negative_counts_are_lies() -> None:
    with pytest.raises(ModelError):
        Budget(10, "m", "model").count(-1)


def test_malformed_names_the_file_and_kind() -> None:
    error = malformed("m.pte", "ExecuTorch program", "IndexError")
    assert error.message == "m.pte: malformed ExecuTorch program (IndexError)"
    assert "truncated or damaged" in error.hint

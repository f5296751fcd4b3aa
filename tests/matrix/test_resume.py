"""--resume trusts a finished cell only with the same input fingerprint and a bundle that
still verifies; anything else runs again."""

from __future__ import annotations

import pytest
from matrix_folders import KWS, run_spec

pytestmark = pytest.mark.emulated


def _spec(iterations: int) -> str:
    return f"""hpx_matrix: 1
models: [{KWS}]
engines: [{{type: loops, backends: [plain]}}]
boards: [qemu-m55]
profile:
  profiling: {{iterations: {iterations}}}
"""


def test_resume_skips_only_what_is_done_with_the_same_inputs() -> None:
    first = run_spec("resume", _spec(3)).cells[0]
    assert first.status == "complete" and not first.resumed and first.bundle is not None

    same = run_spec("resume", _spec(3), resume=True).cells[0]
    assert same.resumed and same.bundle == first.bundle and same.numbers == first.numbers

    summary = first.bundle / "summary.json"
    summary.write_text(summary.read_text().replace('"complete"', '"completed"', 1))
    tampered = run_spec("resume", _spec(3), resume=True).cells[0]
    assert not tampered.resumed and tampered.status == "complete"
    assert tampered.bundle != first.bundle and not first.bundle.exists()

    changed = run_spec("resume", _spec(4), resume=True).cells[0]
    assert not changed.resumed and changed.status == "complete"
    assert changed.planned.fingerprint != first.planned.fingerprint
    assert changed.numbers is not None and changed.numbers.whole == first.numbers.whole  # type: ignore[union-attr]

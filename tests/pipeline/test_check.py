"""pipeline.check: the stages before the first fetch, nothing fetched, built or written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hpx_core import pipeline

TIER1 = Path(__file__).resolve().parents[1] / "fixtures" / "executorch_tier1" / "tier1_arm.pte"


def test_check_runs_the_stages_before_sources_and_keeps_their_products(
    write_yaml: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    path = write_yaml(f"model: {{path: {TIER1}}}\nengine: {{type: executorch}}\n")
    outcome = pipeline.check(path)
    assert outcome.stages == pipeline.CHECKED_STAGES
    assert pipeline.CHECKED_STAGES == ("config", "model analysis", "license check",
                                       "counter plan", "memory plan")
    assert pipeline.STAGE_NAMES[len(pipeline.CHECKED_STAGES)] == "sources"
    assert outcome.model is not None and outcome.model.format == "pte"
    assert outcome.board is not None and outcome.board.name == "qemu-m55"
    assert outcome.sources is None and outcome.build is None and outcome.record is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hpx.yaml"]

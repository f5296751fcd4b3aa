"""The pinned tflm sources, materialized once per session (e2e tests only)."""

from __future__ import annotations

import pytest

from hpx_core.engine import SourceSet
from hpx_core.sources import materialize


@pytest.fixture(scope="session")
def tflm_sources() -> SourceSet:
    return materialize("tflm", "cmsis_nn")

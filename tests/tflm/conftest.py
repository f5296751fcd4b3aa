"""The pinned tflm sources, materialized once per session (e2e tests only)."""

from __future__ import annotations

import pytest

from hpx_core.contract import SourceSet
from hpx_core.sources import PinSet, materialize


@pytest.fixture(scope="session")
def tflm_sources(catalog: PinSet) -> SourceSet:
    return materialize(catalog, "tflm", "cmsis_nn")

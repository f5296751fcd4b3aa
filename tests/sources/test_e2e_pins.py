"""The real pins materialize (needs the pinned repositories: network, or mirrors via insteadOf)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from git import Git
from packaging.version import Version

from hpx_core.sources.cache import SourceCache
from hpx_core.sources.checkout import inspect
from hpx_core.sources.materialize import materialize
from hpx_core.sources.pins import PinSet
from hpx_core.sources.versions import require_min_version, source_version

pytestmark = pytest.mark.e2e

ENGINES = [("tflm", "reference"), ("tflm", "cmsis_nn"), ("helia-rt", None), ("helia-aot", None)]


def head(path: Path) -> str:
    return str(Git(str(path)).rev_parse("HEAD"))


# The git configuration as the user has it (read at collection, before any fixture runs).
USER_GIT = {key: os.environ.get(key) for key in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")}


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replaces the unit tests' private git config: these tests use the user's own mirrors."""
    for key, value in USER_GIT.items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)


def test_executorch_at_its_pins(tmp_path: Path, catalog: PinSet) -> None:
    store = SourceCache(tmp_path / "cache")
    sources = materialize(catalog, "executorch", "arm", cache=store)
    root = sources.path_of("nsx-executorch")
    assert head(root) == "62b22f96dc49e2c28eb20aee0f15ebb7ad1c1d59"
    executorch = root / "external" / "executorch"
    assert head(executorch) == "3a97429b0ce0c192861fc3e3729fb81432fd22cf"
    assert sources.path_of("executorch") == executorch
    for name in ("flatbuffers", "flatcc", "gflags"):
        sub = executorch / "third-party" / name
        assert (sub / ".git").exists()
        assert head(sub) == next(r.commit for r in sources.repos if r.path == sub)
    assert (executorch / "backends/xnnpack/third-party/FXdiv/include/fxdiv.h").exists()
    pin = catalog.pin("nsx-executorch")
    assert inspect(root, pin).state == "at pin"


@pytest.mark.parametrize(("engine", "backend"), ENGINES)
def test_engine_pins_materialize_and_verify_offline(
    tmp_path: Path, catalog: PinSet, engine: str, backend: str | None
) -> None:
    store = SourceCache(tmp_path / "cache")
    sources = materialize(catalog, engine, backend, cache=store)
    assert sources.provenance == "qualified"
    for repo in sources.repos:
        assert head(repo.path) == repo.commit
    again = materialize(catalog, engine, backend, cache=store, offline=True)
    assert again == sources


def test_versions_read_from_the_pinned_trees_match_the_pins(tmp_path: Path,
                                                            catalog: PinSet) -> None:
    sources = materialize(catalog, "helia-rt", "helia", cache=SourceCache(tmp_path / "cache"))
    for name in ("helia-rt", "ns-cmsis-nn"):
        pin = catalog.pin(name)
        assert pin.version is not None
        assert source_version(pin, sources.path_of(name)) == Version(pin.version)
    assert require_min_version(catalog.pin("helia-rt"), sources.path_of("helia-rt")) == Version(
        "1.17.0")

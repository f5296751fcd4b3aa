"""Version floors: read from package metadata and from source trees, failing closed."""

from __future__ import annotations

import copy
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from hpx_core.errors import SourceError, ToolError
from hpx_core.sources.baseline import Baseline, parse_baseline
from hpx_core.sources.versions import (
    heliart_version,
    package_status,
    require_heliart,
    require_package,
)

SHIPPED = Path(__file__).parents[2] / "hpx_core" / "data" / "baseline.toml"
HEADER = "tensorflow/lite/micro/helia_rt_version.h"


def baseline_with_package(distribution: str, floor: str) -> Baseline:
    raw: dict[str, Any] = copy.deepcopy(tomllib.loads(SHIPPED.read_text()))
    raw["packages"]["helia-aot"]["distribution"] = distribution
    raw["packages"]["helia-aot"]["min_version"] = floor
    return parse_baseline(raw)


def heliart_tree(root: Path, line: str) -> Path:
    header = root / HEADER
    header.parent.mkdir(parents=True)
    header.write_text(f"#ifndef X\n{line}\n#endif\n")
    return root


def test_installed_package_meets_its_floor() -> None:
    installed = metadata.version("attrs")
    base = baseline_with_package("attrs", "1.0")
    assert str(require_package("helia-aot", base)) == installed
    assert package_status("helia-aot", base).ok


def test_package_below_floor_names_the_pip_command() -> None:
    base = baseline_with_package("attrs", "999.0")
    with pytest.raises(ToolError, match=r"below the supported minimum 999\.0") as caught:
        require_package("helia-aot", base)
    assert caught.value.hint == 'pip install "attrs>=999.0"'


def test_missing_package_is_an_error_with_the_install_command() -> None:
    base = baseline_with_package("hpx-test-distribution-that-does-not-exist", "0.18.0")
    status = package_status("helia-aot", base)
    assert status.installed is None and not status.ok
    with pytest.raises(ToolError, match="is not installed") as caught:
        require_package("helia-aot", base)
    assert "0.18.0" in caught.value.hint


def test_heliart_version_from_source_or_distribution(tmp_path: Path) -> None:
    tree = heliart_tree(tmp_path / "src", '#define HELIA_RT_VERSION "v1.17.0"  // x-release')
    assert str(heliart_version(tree)) == "1.17.0"
    assert str(require_heliart(tree)) == "1.17.0"
    old = heliart_tree(tmp_path / "old", '#define HELIA_RT_VERSION "v1.15.0"')
    with pytest.raises(SourceError, match=r"below the supported minimum 1\.16\.0"):
        require_heliart(old)


def test_heliart_version_fails_closed(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="is missing"):
        heliart_version(tmp_path)
    garbled = heliart_tree(tmp_path / "g", "#define HELIA_RT_VERSION_STRING unknown")
    with pytest.raises(SourceError, match="no version found"):
        heliart_version(garbled)
    nonsense = heliart_tree(tmp_path / "n", '#define HELIA_RT_VERSION "latest"')
    with pytest.raises(SourceError, match="not a version"):
        heliart_version(nonsense)

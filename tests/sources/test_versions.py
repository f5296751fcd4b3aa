"""Version floors: read from package metadata and from source trees, failing closed."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from hpx_core.errors import SourceError, ToolError
from hpx_core.sources.pins import PackagePin, RepoPin
from hpx_core.sources.versions import (
    package_status,
    require_min_version,
    require_package,
    source_version,
)

HEADER = "include/tool_version.h"
TREE = RepoPin(
    name="tool", url="https://example.com/tool", commit="0" * 40, license="MIT", runs_on="any",
    version="1.17.0", min_version="1.16.0", version_file=HEADER,
    version_pattern=r'#\s*define\s+TOOL_VERSION\s+"v?([^"]+)"',
)


def package(distribution: str, floor: str) -> PackagePin:
    return PackagePin("tool", distribution, "MIT", "any", min_version=floor)


def tree(root: Path, line: str) -> Path:
    header = root / HEADER
    header.parent.mkdir(parents=True)
    header.write_text(f"#ifndef X\n{line}\n#endif\n")
    return root


def test_installed_package_meets_its_floor() -> None:
    installed = metadata.version("attrs")
    assert str(require_package(package("attrs", "1.0"))) == installed
    assert package_status(package("attrs", "1.0")).ok


def test_package_below_floor_names_the_pip_command() -> None:
    with pytest.raises(ToolError, match=r"below the supported minimum 999\.0") as caught:
        require_package(package("attrs", "999.0"))
    assert caught.value.hint == 'pip install "attrs>=999.0"'


def test_missing_package_is_an_error_with_the_install_command() -> None:
    absent = package("hpx-test-distribution-that-does-not-exist", "0.18.0")
    status = package_status(absent)
    assert status.installed is None and not status.ok
    with pytest.raises(ToolError, match="is not installed") as caught:
        require_package(absent)
    assert "0.18.0" in caught.value.hint


def test_source_version_and_its_floor(tmp_path: Path) -> None:
    current = tree(tmp_path / "src", '#define TOOL_VERSION "v1.17.0"  // x-release')
    assert str(source_version(TREE, current)) == "1.17.0"
    assert str(require_min_version(TREE, current)) == "1.17.0"
    old = tree(tmp_path / "old", '#define TOOL_VERSION "v1.15.0"')
    with pytest.raises(SourceError, match=r"tool 1\.15\.0 .* below the supported minimum 1\.16"):
        require_min_version(TREE, old)


def test_source_version_fails_closed(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="is missing"):
        source_version(TREE, tmp_path)
    garbled = tree(tmp_path / "g", "#define TOOL_VERSION_STRING unknown")
    with pytest.raises(SourceError, match="no version found"):
        source_version(TREE, garbled)
    nonsense = tree(tmp_path / "n", '#define TOOL_VERSION "latest"')
    with pytest.raises(SourceError, match="not a version"):
        source_version(TREE, nonsense)

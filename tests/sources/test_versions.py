"""Version floors: read from package metadata and from source trees, failing closed."""

from __future__ import annotations

import copy
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from hpx_core.errors import SourceError, ToolError
from hpx_core.sources.baseline import Baseline, parse_baseline
from hpx_core.sources.versions import (
    check_helia_aot_pair,
    helia_aot_kernel_floor,
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


def fake_aot(root: Path, version: str, floor: tuple[int, int, int]) -> Path:
    """An installed distribution as pip lays it out: dist-info metadata beside the package."""
    info = root / f"hpx_fake_aot-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: hpx-fake-aot\nVersion: {version}\n"
    )
    defines = root / "helia_aot" / "aot" / "defines.py"
    defines.parent.mkdir(parents=True)
    major, minor, patch = floor
    defines.write_text(
        "from .versions import SemanticVersion\n"
        f"CMSIS_NN_VERSION = SemanticVersion(major={major}, minor={minor}, patch={patch})\n"
    )
    return root


def ns_cmsis_nn_tree(root: Path, major: int, minor: int, patch: int) -> Path:
    header = root / "Include" / "arm_nn_types.h"
    header.parent.mkdir(parents=True)
    header.write_text(
        f"#define NS_CMSIS_NN_VERSION_MAJOR ({major})  /* x-release-please-major */\n"
        f"#define NS_CMSIS_NN_VERSION_MINOR ({minor}) /* x-release-please-minor */\n"
        f"#define NS_CMSIS_NN_VERSION_PATCH ({patch})  /* x-release-please-patch */\n"
    )
    return root


@pytest.mark.parametrize(
    ("aot", "floor", "ok"), [("0.18.0", (7, 25, 0), True), ("1.1.0", (7, 47, 0), False)]
)
def test_helia_aot_and_ns_cmsis_nn_must_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, aot: str, floor: tuple[int, int, int], ok: bool
) -> None:
    monkeypatch.syspath_prepend(str(fake_aot(tmp_path / "site", aot, floor)))
    base = baseline_with_package("hpx-fake-aot", "0.18.0")
    assert helia_aot_kernel_floor(base) == Version(".".join(map(str, floor)))
    kernels = ns_cmsis_nn_tree(tmp_path / "ns", 7, 29, 2)
    if ok:
        assert check_helia_aot_pair(kernels, base) == Version("7.29.2")
        return
    with pytest.raises(ToolError) as caught:
        check_helia_aot_pair(kernels, base)
    assert "1.1.0" in caught.value.message and "7.47.0" in caught.value.message
    assert "7.29.2" in caught.value.message
    assert 'pip install "hpx-fake-aot==0.18.0"' in caught.value.hint


def test_unknown_helia_aot_layout_fails_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_aot(tmp_path / "site", "2.0.0", (7, 50, 0))
    (site / "helia_aot" / "aot" / "defines.py").write_text("KERNELS = 'whatever'\n")
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(ToolError, match="cannot tell which ns-cmsis-nn"):
        helia_aot_kernel_floor(baseline_with_package("hpx-fake-aot", "0.18.0"))

"""Prebuilt heliaRT bundles: core/toolchain/variant and version checks, zip and release download.

The bundles here have the layout of heliaRT's release workflow (``package_helia_bundle.sh``):
``helia-rt-<tag>/lib/libhelia-rt-<cmX>-<toolchain>-<build>.a`` and the TFLM header tree with
``helia_rt_version.h``. Their archives are empty ``ar`` archives: these tests check selection
and refusals; the e2e test links a bundle made from a real heliaRT build.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hpx_heliart.config import HeliaRtConfig, ReleaseSource
from hpx_heliart.dist import (
    archive_name,
    bundle_name,
    check_distribution,
    download_release,
    release_url,
)
from hpx_heliart.engine import heliart_sources

from hpx_core.boards import get_board
from hpx_core.errors import ConfigError, SourceError

from .conftest import CATALOG, VERSION_HEADER, version_header

EMPTY_AR = b"!<arch>\n"


def make_bundle(parent: Path, tag: str = "v1.17.0", version: str | None = "1.17.0",
                archives: tuple[str, ...] = ("cm55", "cm4")) -> Path:
    root = parent / bundle_name(tag)
    (root / "lib").mkdir(parents=True)
    for core in archives:
        for build in ("debug", "release", "release_with_logs"):
            (root / "lib" / f"libhelia-rt-{core}-gcc-{build}.a").write_bytes(EMPTY_AR)
    if version is not None:
        header = root / VERSION_HEADER
        header.parent.mkdir(parents=True)
        header.write_text(version_header(version), encoding="utf-8")
    (root / "MANIFEST.txt").write_text(f"helia-rt {tag}\n", encoding="utf-8")
    return root


def zip_bundle(root: Path, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w") as zf:
        for path in sorted(root.rglob("*")):
            zf.write(path, path.relative_to(root.parent).as_posix())
    return dest


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))


def test_names_follow_the_release_workflow() -> None:
    assert archive_name("cortex-m55", "release_with_logs") == (
        "libhelia-rt-cm55-gcc-release_with_logs.a")
    assert archive_name("cortex-m4", "debug") == "libhelia-rt-cm4-gcc-debug.a"
    assert bundle_name("v1.17.0") == bundle_name("helia-rt-v1.17.0") == "helia-rt-v1.17.0"
    assert release_url("AmbiqAI/helia-rt", "v1.17.0") == (
        "https://github.com/AmbiqAI/helia-rt/releases/download/v1.17.0/helia-rt-v1.17.0.zip")


def test_a_folder_bundle_gives_the_archive_for_core_and_variant(tmp_path: Path) -> None:
    root = make_bundle(tmp_path)
    dist = check_distribution(root, "cortex-m55", "release_with_logs")
    assert dist.archive == root / "lib" / "libhelia-rt-cm55-gcc-release_with_logs.a"
    assert str(dist.version) == "1.17.0"


def test_a_zip_bundle_is_unpacked_once_into_the_cache(tmp_path: Path) -> None:
    archive = zip_bundle(make_bundle(tmp_path / "src"), tmp_path / "bundle.zip")
    first = check_distribution(archive, "cortex-m4", "debug")
    again = check_distribution(archive, "cortex-m4", "debug")
    assert first.root == again.root and first.root.is_relative_to(tmp_path / "cache")
    assert first.archive.name == "libhelia-rt-cm4-gcc-debug.a"


def test_a_bundle_without_the_board_core_is_refused_with_what_it_has(tmp_path: Path) -> None:
    root = make_bundle(tmp_path, archives=("cm4",))
    with pytest.raises(SourceError) as caught:
        check_distribution(root, "cortex-m55", "release_with_logs")
    assert "libhelia-rt-cm55-gcc-release_with_logs.a" in caught.value.message
    assert "libhelia-rt-cm4-gcc-debug.a" in caught.value.hint


def test_a_bundle_below_the_floor_is_refused(tmp_path: Path) -> None:
    root = make_bundle(tmp_path, version="1.15.2")
    with pytest.raises(SourceError) as caught:
        check_distribution(root, "cortex-m55", "release_with_logs")
    assert "1.15.2" in caught.value.message and "1.16.0" in caught.value.message


def test_a_bundle_whose_version_cannot_be_read_is_refused(tmp_path: Path) -> None:
    root = make_bundle(tmp_path, version=None)
    with pytest.raises(SourceError, match="cannot read the helia-rt version"):
        check_distribution(root, "cortex-m55", "release_with_logs")


def test_a_folder_that_is_no_bundle_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="not a heliaRT distribution"):
        check_distribution(tmp_path / "empty", "cortex-m55", "release_with_logs")


def test_a_release_asset_is_downloaded_from_its_url_and_cached(tmp_path: Path) -> None:
    releases = tmp_path / "server" / "releases" / "download" / "v1.17.0"
    releases.mkdir(parents=True)
    zip_bundle(make_bundle(tmp_path / "src"), releases / "helia-rt-v1.17.0.zip")
    base = (tmp_path / "server").as_uri()
    got = download_release(base, "v1.17.0")
    assert got.read_bytes() == (releases / "helia-rt-v1.17.0.zip").read_bytes()
    (releases / "helia-rt-v1.17.0.zip").unlink()  # the second call must not download again
    assert download_release(base, "v1.17.0") == got
    assert check_distribution(got, "cortex-m55", "release_with_logs").version.major == 1


def test_a_missing_release_asset_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"cannot download the heliaRT release v9\.9\.9"):
        download_release((tmp_path / "nowhere").as_uri(), "v9.9.9")
    assert not list((tmp_path / "cache" / "downloads").glob("*.zip"))


def test_the_release_variant_is_refused_because_it_strips_the_profiler(tmp_path: Path) -> None:
    config = HeliaRtConfig(dist_path=make_bundle(tmp_path), variant="release")
    with pytest.raises(ConfigError, match="variant 'release'"):
        heliart_sources(CATALOG, "helia", get_board("apollo510_evb"), config)


def test_a_bundle_carries_only_the_helia_backend(tmp_path: Path) -> None:
    config = HeliaRtConfig(dist_path=make_bundle(tmp_path))
    with pytest.raises(ConfigError, match="not reference"):
        heliart_sources(CATALOG, "reference", get_board("apollo510_evb"), config)


@pytest.mark.e2e  # materializes CMSIS_6 at its pin
def test_a_release_source_for_an_apollo_board_resolves_to_the_checked_bundle(
    tmp_path: Path
) -> None:
    releases = tmp_path / "server" / "releases" / "download" / "helia-rt-v1.17.0"
    releases.mkdir(parents=True)
    zip_bundle(make_bundle(tmp_path / "src"), releases / "helia-rt-v1.17.0.zip")
    config = HeliaRtConfig(source=ReleaseSource(repo=(tmp_path / "server").as_uri(),
                                                ref="helia-rt-v1.17.0"))
    sources = heliart_sources(CATALOG, "helia", get_board("apollo4p_evb"), config)
    repo = next(r for r in sources.repos if r.name == "helia-rt")
    assert sources.provenance == "development-overrides"
    assert repo.commit.startswith("prebuilt-1.17.0-sha256:")
    assert (repo.path / "lib" / "libhelia-rt-cm4-gcc-release_with_logs.a").is_file()

"""A prebuilt heliaRT bundle made from a real helia build links like the source build.

The bundle is assembled the way heliaRT's release workflow lays one out: one archive per core,
toolchain and build type (here the cached helia build's runtime and ns-cmsis-nn archives merged
into ``libhelia-rt-cm55-gcc-release_with_logs.a``), the header tree with ``third_party/``, and
``helia_rt_version.h``. It is offered both as ``dist_path`` and as a release asset.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hpx_heliart.config import HeliaRtConfig
from hpx_heliart.dist import archive_name
from hpx_heliart.engine import heliart_library, heliart_sources
from profiles import BUILD_ONLY, profile_run

from hpx_core.boards import get_board

from .conftest import CATALOG, MODELS

pytestmark = pytest.mark.e2e
WORK = Path(tempfile.mkdtemp(prefix="hpx-heliart-dist-e2e-"))


def _merge(archives: tuple[Path, ...], dest: Path) -> None:
    script = f"CREATE {dest}\n" + "".join(f"ADDLIB {a}\n" for a in archives) + "SAVE\nEND\n"
    subprocess.run(["arm-none-eabi-ar", "-M"], input=script, text=True, check=True)


def _headers(src: Path, dest: Path) -> None:
    for path in src.rglob("*.h"):
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


@pytest.fixture(scope="module")
def bundle() -> Path:
    board = get_board("apollo510_evb")
    sources = heliart_sources(CATALOG, "helia", board, HeliaRtConfig())
    library = heliart_library(sources, "helia", board, HeliaRtConfig(kernels="all"))  # a whole one
    root = sources.path_of("helia-rt")
    out = WORK / "helia-rt-v1.17.0"
    (out / "lib").mkdir(parents=True)
    _merge(library.archives, out / "lib" / archive_name("cortex-m55", "release_with_logs"))
    for tree in ("tensorflow", "signal"):
        _headers(root / tree, out / tree)
    _headers(root / "third_party_static", out / "third_party")
    (out / "MANIFEST.txt").write_text("helia-rt v1.17.0\n", encoding="utf-8")
    return out


def test_a_dist_path_bundle_links_with_the_helia_backend(bundle: Path) -> None:
    done = profile_run(MODELS / "kws_ref_model.tflite", "helia-rt", "apollo510_evb",
                       WORK / "dist", backend="helia", until=BUILD_ONLY, dist_path=str(bundle))
    assert done.findings and all(f.passed for f in done.findings), done.findings
    assert done.sources is not None and done.sources.provenance == "development-overrides"
    archive = bundle / "lib" / archive_name("cortex-m55", "release_with_logs")
    assert done.contribution is not None and archive.as_posix() in done.contribution.cmake


def test_a_release_asset_bundle_downloads_and_links(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    releases = tmp_path / "server" / "releases" / "download" / "v1.17.0"
    releases.mkdir(parents=True)
    shutil.make_archive(str(releases / "helia-rt-v1.17.0"), "zip", bundle.parent, bundle.name)
    source = {"repo": (tmp_path / "server").as_uri(), "ref": "v1.17.0"}
    done = profile_run(MODELS / "ad01_int8.tflite", "helia-rt", "apollo510_evb",
                       WORK / "release", backend="helia", until=BUILD_ONLY, source=source)
    assert done.findings and all(f.passed for f in done.findings), done.findings
    assert (tmp_path / "cache" / "downloads").is_dir()

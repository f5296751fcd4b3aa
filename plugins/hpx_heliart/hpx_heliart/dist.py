"""Prebuilt heliaRT distributions: a local bundle (``dist_path``) or a release asset (``source``).

heliaRT's release workflow publishes one zip per tag, ``helia-rt-<tag>.zip``, holding a folder
``helia-rt-<tag>/`` with ``lib/libhelia-rt-<cmX>-<toolchain>-<build>.a`` (the ``helia``
backend with ns-cmsis-nn inside), the reduced TFLM header tree at its root (which carries
``tensorflow/lite/micro/helia_rt_version.h``) and ``MANIFEST.txt``. hpx checks that the bundle
has an archive for the board's core, the toolchain and the variant, and reads its version from
the header (failing closed). A release asset is downloaded once into the cache, through a
temporary file renamed into place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import attrs
from packaging.version import Version

from hpx_core.sdk import SourceError
from hpx_core.sdk.cache import cache_root
from hpx_core.sdk.sources import RepoPin, load_pins, require_min_version

TOOLCHAIN = "gcc"  # heliaRT's name for arm-none-eabi-gcc builds
GITHUB = "https://github.com"
PREFIX = "helia-rt"


@attrs.frozen
class Distribution:
    """A checked prebuilt heliaRT: its root, the archive for this board, and its version."""

    root: Path
    archive: Path
    version: Version
    origin: str


def core_tag(core: str) -> str:
    """heliaRT's short core name: ``cortex-m55`` -> ``cm55``, ``cortex-m4`` -> ``cm4``."""
    return "cm" + core.removeprefix("cortex-m").split("+")[0]


def archive_name(core: str, variant: str) -> str:
    return f"libhelia-rt-{core_tag(core)}-{TOOLCHAIN}-{variant}.a"


def bundle_name(ref: str) -> str:
    """The release's folder and zip name, as heliaRT's ``release_bundle_name`` makes it."""
    return ref if ref == PREFIX or ref.startswith(f"{PREFIX}-") else f"{PREFIX}-{ref}"


def release_url(repo: str, ref: str) -> str:
    """Where the release asset of ``ref`` is; ``repo`` is ``owner/name`` or a base URL."""
    base = repo.rstrip("/") if "://" in repo else f"{GITHUB}/{repo}"
    return f"{base}/releases/download/{ref}/{bundle_name(ref)}.zip"


def _bundle_root(path: Path) -> Path:
    """The folder holding ``lib/``: ``path`` itself, or its single top folder."""
    if (path / "lib").is_dir():
        return path
    tops = [p for p in path.iterdir() if p.is_dir()] if path.is_dir() else []
    if len(tops) == 1 and (tops[0] / "lib").is_dir():
        return tops[0]
    raise SourceError(f"{path} is not a heliaRT distribution: it has no lib/ folder",
                      "point dist_path at an unpacked heliaRT release bundle or its .zip")


def _safe_extract(archive: Path, dest: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        for member in zf.namelist():
            target = (dest / member).resolve()
            if not target.is_relative_to(dest.resolve()):
                raise SourceError(f"{archive} holds a path outside its folder: {member}",
                                  "use a heliaRT release bundle as published")
        zf.extractall(dest)


def _unpacked(path: Path) -> Path:
    """A ``.zip`` bundle unpacked once into the cache (keyed by its bytes); a folder as is."""
    if path.is_dir():
        return path
    if not zipfile.is_zipfile(path):
        raise SourceError(f"dist_path {path} is neither a folder nor a zip archive",
                          "point it at a heliaRT release bundle (.zip) or its unpacked folder")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:20]
    base = cache_root() / "dists"
    final = base / f"helia-rt-{digest}"
    if not final.is_dir():
        base.mkdir(parents=True, exist_ok=True)
        temp = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=base))
        try:
            _safe_extract(path, temp)
            temp.rename(final)
        except FileExistsError:
            shutil.rmtree(temp, ignore_errors=True)  # another run unpacked it first
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
    return final


def check_distribution(path: Path, core: str, variant: str, origin: str = "") -> Distribution:
    """The bundle at ``path`` (folder or zip), checked for core, toolchain, variant, version."""
    if not path.exists():
        raise SourceError(f"heliaRT distribution {path} does not exist",
                          "check engine.config.dist_path / HELIART_DIST_PATH")
    root = _bundle_root(_unpacked(path))
    wanted = archive_name(core, variant)
    archive = root / "lib" / wanted
    if not archive.is_file():
        found = sorted(p.name for p in (root / "lib").glob("libhelia-rt-*.a"))
        raise SourceError(
            f"the heliaRT distribution at {path} has no {wanted} ({core}, {TOOLCHAIN}, {variant})",
            f"it has: {', '.join(found) or 'no heliaRT archives'}; use a bundle built for this "
            "board's core and toolchain, or set engine.config.variant",
        )
    version = require_min_version(heliart_pin(), root)
    return Distribution(root=root, archive=archive, version=version, origin=origin or str(path))


def heliart_pin() -> RepoPin:
    """heliaRT's pin, from this plugin's own pins (its version file and floor)."""
    return load_pins("hpx_heliart").pin("helia-rt")


def download_release(repo: str, ref: str, *, timeout: float = 120) -> Path:
    """The release asset of ``ref`` in the cache, downloaded now if it is not there yet."""
    url = release_url(repo, ref)
    key = hashlib.sha256(url.encode()).hexdigest()[:20]
    base = cache_root() / "downloads"
    final = base / f"{key}-{bundle_name(ref)}.zip"
    if final.is_file():
        return final
    base.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{final.name}.tmp-", dir=base)
    temp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            shutil.copyfileobj(resp, out)
        temp.rename(final)
    except (urllib.error.URLError, OSError) as exc:
        temp.unlink(missing_ok=True)
        raise SourceError(f"cannot download the heliaRT release {ref} from {url}: {exc}",
                          "check engine.config.source (repo, ref) and the network, or use "
                          "dist_path with a downloaded bundle") from None
    return final

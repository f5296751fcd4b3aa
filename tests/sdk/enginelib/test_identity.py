"""Library keys name what changes the objects, never where things are: the same sources in
another folder and a moved cache give the same key; a development override's edits a new one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import attrs
import pytest

from hpx_core.contract import SourceRepo, SourceSet
from hpx_core.sdk.enginelib import (
    LibrarySpec,
    SourceGroup,
    ensure_library,
    source_identity,
    source_roots,
)
from hpx_core.sdk.enginelib.identity import DEBUG_ROOT, portable, resolved
from hpx_core.sources.content import tree_digest

M4 = ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb")
COMMIT = "1" * 40


def _sources(root: Path, provenance: str = "qualified") -> SourceSet:
    return SourceSet([SourceRepo("kernels", "https://example.invalid/k", COMMIT, root, "MIT")],
                     provenance)  # type: ignore[arg-type]


def _spec(sources: SourceSet) -> LibrarySpec:
    root = sources.path_of("kernels")
    return LibrarySpec(
        name="moved", groups=[SourceGroup("all", [str(root / "k.c")], ["-O2"])],
        include_dirs=[str(root / "include")], defines={}, cpu_flags=M4,
        file_options={str(root / "k.c"): "-fno-if-conversion"},
        common_flags=["-g", "-ffunction-sections"],
        identity={"engine": "demo", **source_identity(sources)}, roots=source_roots(sources))


def _write_kernels(root: Path) -> None:
    (root / "include").mkdir(parents=True)
    (root / "include" / "k.h").write_text("#define SCALE 3\n")
    (root / "k.c").write_text('#include "k.h"\nint k(int x) { return x * SCALE; }\n')


def test_same_sources_elsewhere_give_the_same_key(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    here, there = _spec(_sources(tmp_path / "a")), _spec(_sources(tmp_path / "b" / "deeper"))
    assert here.key() == there.key()
    assert attrs.evolve(here, cpu_flags=M4[:1]).key() != here.key()
    other = _sources(tmp_path / "a")
    moved_pin = SourceSet([attrs.evolve(other.repos[0], commit="2" * 40)])
    assert _spec(moved_pin).key() != here.key()


def test_paths_are_written_relative_to_their_roots(tmp_path: Path) -> None:
    roots = {"kernels": str(tmp_path / "k"), "cache": str(tmp_path)}
    text = f"-I{tmp_path}/k/include;{tmp_path}/engines/x"
    written = portable(text, roots)
    assert written == "-I@kernels@/include;@cache@/engines/x"
    assert resolved(written, roots) == text
    assert portable({f"{tmp_path}/k/a.c": [f"{tmp_path}/k"]}, roots) == {
        "@kernels@/a.c": ["@kernels@"]}


def _git(path: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
                        "HOME": str(path), "PATH": "/usr/bin:/bin"})


def test_a_development_override_is_keyed_by_its_content(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    checkout = tmp_path / "override"
    _write_kernels(checkout)
    _git(checkout, "init", "-q")
    _git(checkout, "add", ".")
    _git(checkout, "commit", "-qm", "kernels")
    tree_digest.cache_clear()
    clean = source_identity(_sources(checkout, "development-overrides"))["pin:kernels"]
    assert clean.startswith("git:")
    (checkout / "k.c").write_text("int k(int x) { return x * 4; }\n")
    tree_digest.cache_clear()
    edited = source_identity(_sources(checkout, "development-overrides"))["pin:kernels"]
    assert edited.startswith("git-edited:") and edited != clean
    copy = tmp_path / "copy"
    shutil.copytree(checkout, copy, ignore=shutil.ignore_patterns(".git"))
    (copy / "k.c").write_text((checkout / "k.c").read_text())
    assert tree_digest(copy).startswith("files:")
    assert tree_digest(copy) == tree_digest(Path(shutil.copytree(copy, tmp_path / "copy2")))
    # a checkout at its pin in the cache keeps its commit
    assert source_identity(_sources(checkout))["pin:kernels"] == COMMIT


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None or shutil.which("ninja") is None,
                    reason="needs the Arm toolchain and ninja")
def test_a_moved_cache_is_used_without_compiling(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources and libraries in one cache folder; the folder moves; nothing is compiled."""
    first_root, moved_root = tmp_path / "first", tmp_path / "elsewhere" / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(first_root))
    _write_kernels(first_root / "sources" / "kernels")
    built = ensure_library(_spec(_sources(first_root / "sources" / "kernels")))
    assert built.built and built.compiled_files == 1
    archive = built.archive.read_bytes()
    assert str(first_root).encode() not in archive  # debug info names the cache as /hpx-cache
    assert f"{DEBUG_ROOT}/sources/kernels/k.c".encode() in archive
    moved_root.parent.mkdir()
    first_root.rename(moved_root)
    monkeypatch.setenv("HPX_CACHE_DIR", str(moved_root))
    again = ensure_library(_spec(_sources(moved_root / "sources" / "kernels")))
    assert not again.built and again.compiled_files == 0 and again.key == built.key
    assert again.archive.read_bytes() == archive
    assert again.folder.parent == moved_root / "engines"

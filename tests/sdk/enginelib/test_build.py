"""Engine libraries: the key, the generated CMake, and a real build cached once."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from hpx_core.sdk.enginelib import LibrarySpec, SourceGroup, ensure_library, library_cmake
from hpx_core.sdk.enginelib.build import library_cmakelists

M55 = ("-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb")


def _spec(folder: Path) -> LibrarySpec:
    return LibrarySpec(
        name="demo",
        groups=[SourceGroup("core", [str(folder / "a.c")], ["-Os"]),
                SourceGroup("kernels", [str(folder / "b.cc")], ["-O2"])],
        include_dirs=["@LIB@/staged"],
        defines={"DEMO": "1", "FLAG": ""},
        cpu_flags=M55,
        common_flags=["-ffunction-sections"],
        identity={"engine": "demo", "pin": "0" * 40},
    )


def test_key_changes_with_every_input(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    variants = [
        attrs.evolve(spec, cpu_flags=("-mcpu=cortex-m4", "-mthumb")),
        attrs.evolve(spec, defines={"DEMO": "2"}),
        attrs.evolve(spec, identity={"engine": "demo", "pin": "1" * 40}),
        attrs.evolve(spec, groups=spec.groups[:1]),
    ]
    keys = {spec.key(), *(v.key() for v in variants)}
    assert len(keys) == 5
    assert spec.key() == _spec(tmp_path).key()


def test_cmakelists_has_groups_flags_and_resolved_includes(tmp_path: Path) -> None:
    text = library_cmakelists(_spec(tmp_path), tmp_path / "final")
    assert "add_library(demo STATIC" in text
    assert 'COMPILE_OPTIONS "-Os"' in text and 'COMPILE_OPTIONS "-O2"' in text
    assert f'"{(tmp_path / "final" / "staged").as_posix()}"' in text
    assert '"DEMO=1"' in text and '  "FLAG"\n' in text


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None or shutil.which("ninja") is None,
                    reason="needs the Arm toolchain and ninja")
def test_real_build_is_cached_and_atomic(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.c").write_text('#include "staged.h"\nint a(void) { return STAGED + DEMO; }\n')
    (src / "b.cc").write_text('extern "C" int b(int x) { return x * 3; }\n')

    def stage(folder: Path) -> None:
        (folder / "staged").mkdir()
        (folder / "staged" / "staged.h").write_text("#define STAGED 41\n")

    cache = tmp_path / "cache"
    first = ensure_library(_spec(src), stage, root=cache)
    assert first.built and first.compiled_files == 2
    assert first.archive.is_file() and first.archive.read_bytes().startswith(b"!<arch>")
    assert (first.folder / "staged" / "staged.h").is_file()
    assert not list((cache / "engines").glob(".demo-*.tmp-*"))
    second = ensure_library(_spec(src), stage, root=cache)
    assert not second.built and second.compiled_files == 0
    assert second.folder == first.folder
    assert f'IMPORTED_LOCATION "{first.archive.as_posix()}"' in library_cmake(first)


def test_failed_build_leaves_nothing(tmp_path: Path) -> None:
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs the Arm toolchain")
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.c").write_text("this is not C\n")
    (src / "b.cc").write_text("int b;\n")
    from hpx_core.errors import BuildError

    with pytest.raises(BuildError, match="building the demo library failed"):
        ensure_library(_spec(src), lambda f: (f / "staged").mkdir(), root=tmp_path / "c")
    left = [p for p in (tmp_path / "c" / "engines").iterdir() if not p.name.endswith(".lock")]
    assert [p.suffix for p in left] == [".log"]  # only the failed build's log is kept
    assert "this is not C" in left[0].read_text() or "error" in left[0].read_text()

"""Engine libraries kept as units: real builds of a small library with the Arm toolchain."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import pytest

from hpx_core.errors import BuildError
from hpx_core.sdk.enginelib import (
    LibrarySpec,
    Precompiled,
    SourceGroup,
    TargetUnits,
    UnitLibrary,
    ensure_library,
    ensure_units,
    spec_units,
    unit_build,
)

pytestmark = pytest.mark.skipif(
    shutil.which("arm-none-eabi-gcc") is None or shutil.which("ninja") is None,
    reason="needs the Arm toolchain and ninja")
M55 = ("-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb")
SOURCES = {
    "a.c": '#include "staged.h"\nint a(void) { return STAGED; }\n',
    "b.c": "int b(int x) { return x * 3; }\n",
    "c.c": "int c(int x) { return x + 7; }\n",
    "d.c": "int d(int x) { return x - 1; }\n",
}


def _sources(folder: Path, extra: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in {**SOURCES, **(extra or {})}.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _spec(src: Path, kernels: tuple[str, ...] = ("b.c", "c.c", "d.c")) -> LibrarySpec:
    return LibrarySpec(
        name="demo",
        groups=[SourceGroup("core", [str(src / "a.c")], ["-Os"]),
                SourceGroup("kernels", [str(src / k) for k in kernels], ["-O2"])],
        include_dirs=["@LIB@/staged"], defines={"DEMO": "1"}, cpu_flags=M55,
        common_flags=["-ffunction-sections"], identity={"engine": "demo"},
    )


def _stage(folder: Path) -> None:
    (folder / "staged").mkdir()
    (folder / "staged" / "staged.h").write_text("#define STAGED 41\n")


def _units(src: Path, cache: Path, names: set[str], spec: LibrarySpec | None = None
           ) -> UnitLibrary:
    def select(listing: tuple[TargetUnits, ...]) -> set[str]:
        return {u.source for t in listing for u in t.units if Path(u.source).name in names}

    recipe = spec_units(spec or _spec(src), _stage, root=cache)
    return ensure_units(recipe, select, ",".join(sorted(names)), root=cache)


def _members(archive: Path) -> list[str]:
    listed = subprocess.run(["arm-none-eabi-ar", "t", str(archive)], capture_output=True,
                            text=True, check=True)
    return [Path(line).name.split("-")[0] for line in listed.stdout.split()]


def test_units_compile_once_and_link_in_the_whole_librarys_order(tmp_path: Path) -> None:
    src, cache = _sources(tmp_path / "src"), tmp_path / "cache"
    first = _units(src, cache, {"a.c", "d.c"})
    assert (first.compiled, first.linked, first.total) == (2, 2, 4) and first.built
    assert first.archives[0].read_bytes().startswith(b"!<thin>\n")
    assert _members(first.archives[0]) == ["a.c", "d.c"]
    second = _units(src, cache, {"a.c", "b.c", "d.c"})
    assert second.compiled == 1  # b.c only
    assert _members(second.archives[0]) == ["a.c", "b.c", "d.c"]
    again = _units(src, cache, {"a.c", "d.c"})
    assert not again.built and again.compiled == 0 and again.archives == first.archives
    assert again.use().compiled == 0 and again.use().linked == "2 of 4 units"


def test_each_unit_is_the_whole_librarys_own_object(tmp_path: Path) -> None:
    src, cache = _sources(tmp_path / "src"), tmp_path / "cache"
    units = _units(src, cache, set(SOURCES))
    whole = ensure_library(_spec(src), _stage, root=cache)
    members = _members(whole.archive)
    assert members == [f"{name}.obj" for name in SOURCES]
    for member in members:
        from_whole = subprocess.run(["arm-none-eabi-ar", "p", str(whole.archive), member],
                                    capture_output=True, check=True).stdout
        kept = next((units.folder / "objects").glob(f"{member[:-4]}-*.o")).read_bytes()
        assert kept == from_whole, member


def test_a_moved_cache_compiles_nothing_and_its_archives_still_read(tmp_path: Path) -> None:
    src, cache = _sources(tmp_path / "src"), tmp_path / "cache"
    _units(src, cache, {"a.c", "c.c"})
    moved = tmp_path / "elsewhere" / "cache"
    moved.parent.mkdir()
    shutil.move(cache, moved)
    found = _units(src, moved, {"a.c", "c.c"})
    assert not found.built and found.folder.is_relative_to(moved)
    symbols = subprocess.run(["arm-none-eabi-nm", str(found.archives[0])], capture_output=True,
                             text=True, check=True).stdout
    assert " T a\n" in symbols and " T c\n" in symbols


def _in_another_process(src: Path, cache: Path, names: list[str]) -> tuple[int, list[str]]:
    done = _units(src, cache, set(names))
    return done.compiled, _members(done.archives[0])


def test_concurrent_selections_each_get_theirs_and_nothing_is_compiled_twice(
        tmp_path: Path) -> None:
    src, cache = _sources(tmp_path / "src"), tmp_path / "cache"
    wanted = [["a.c", "b.c"], ["a.c", "c.c"], ["a.c", "b.c", "d.c"]]
    with ProcessPoolExecutor(len(wanted)) as pool:
        results = list(pool.map(_in_another_process, [src] * 3, [cache] * 3, wanted))
    assert [members for _, members in results] == wanted
    assert sum(compiled for compiled, _ in results) == 4  # a, b, c and d, once each


@pytest.mark.parametrize("damage", ["truncated", "garbage", "deleted"])
def test_a_damaged_unit_costs_only_its_own_compile(tmp_path: Path, damage: str) -> None:
    """The other units, and the link archives that do not name it, stay as they were."""
    src, cache = _sources(tmp_path / "src"), tmp_path / "cache"
    first = _units(src, cache, {"a.c", "b.c"})
    other = _units(src, cache, {"a.c", "c.c"})
    objects = first.folder / "objects"
    victim = next(objects.glob("b.c-*.o"))
    whole = victim.read_bytes()
    kept = {p.name: p.stat().st_mtime_ns for p in objects.iterdir() if p != victim}
    others = other.archives[0].read_bytes(), other.archives[0].stat().st_mtime_ns
    if damage == "deleted":
        victim.unlink()
    else:
        victim.write_bytes(whole[:20] if damage == "truncated" else b"\xde\xad" * 40)
    again = _units(src, cache, {"a.c", "b.c"})
    assert again.built and again.compiled == 1  # b.c alone
    assert victim.read_bytes() == whole
    assert _members(again.archives[0]) == ["a.c", "b.c"]
    assert {p.name: p.stat().st_mtime_ns for p in objects.iterdir() if p != victim} == kept
    assert (other.archives[0].read_bytes(), other.archives[0].stat().st_mtime_ns) == others
    warm = _units(src, cache, {"a.c", "b.c"})
    assert not warm.built and warm.compiled == 0
    assert _units(src, cache, {"a.c", "c.c"}).compiled == 0


def test_a_damaged_link_archive_is_written_again_compiling_nothing(tmp_path: Path) -> None:
    src, cache = _sources(tmp_path / "src"), tmp_path / "cache"
    first = _units(src, cache, {"a.c", "d.c"})
    archive = first.archives[0]
    archive.write_bytes(b"!<thin>\n")
    again = _units(src, cache, {"a.c", "d.c"})
    assert again.compiled == 0 and _members(again.archives[0]) == ["a.c", "d.c"]


def test_a_damaged_staged_header_makes_the_folder_again(tmp_path: Path) -> None:
    """Found when an extension checks the folder (a damaged object sends it there)."""
    src, cache = _sources(tmp_path / "src"), tmp_path / "cache"
    first = _units(src, cache, {"a.c", "b.c"})
    (first.folder / "staged" / "staged.h").write_text("#define STAGED 0\n")
    next((first.folder / "objects").glob("b.c-*.o")).write_bytes(b"")
    again = _units(src, cache, {"a.c", "b.c"})
    assert again.compiled == 2
    assert (again.folder / "staged" / "staged.h").read_text() == "#define STAGED 41\n"


def test_a_unit_that_fails_keeps_what_was_built(tmp_path: Path) -> None:
    src = _sources(tmp_path / "src", {"e.c": "this is not C\n"})
    cache = tmp_path / "cache"
    spec = _spec(src, ("b.c", "c.c", "d.c", "e.c"))
    _units(src, cache, {"a.c", "b.c"}, spec)
    with pytest.raises(BuildError) as failed:
        _units(src, cache, {"a.c", "e.c"}, spec)
    assert "full log:" in failed.value.hint
    assert not list((cache / "engines").glob(".demo-*.tmp-*"))
    kept = _units(src, cache, {"a.c", "b.c"}, spec)
    assert kept.compiled == 0


def test_targets_built_alongside_the_units_share_their_run_and_are_counted_apart(
        tmp_path: Path) -> None:
    src = _sources(tmp_path / "src", {"extra.c": "int extra(void) { return 5; }\n"})
    recipe = spec_units(_spec(src), _stage, root=tmp_path / "cache")
    asked: list[frozenset[str]] = []

    def project(tree: Path, folder: Path) -> str:
        return recipe.project(tree, folder) + f'add_library(extra STATIC "{src}/extra.c")\n'

    def alongside(chosen: frozenset[str]) -> list[str]:
        asked.append(chosen)
        return ["extra"]

    kept = attrs.evolve(recipe, project=project, tree=tmp_path / "tree", alongside=alongside)
    units = ensure_units(kept, lambda listing: {u.source for t in listing for u in t.units
                                                if Path(u.source).name == "b.c"},
                         "b", root=tmp_path / "cache")
    assert (units.compiled, units.alongside) == (1, 1)
    assert [sorted(Path(s).name for s in c) for c in asked] == [["b.c"]]
    assert _members(next((tmp_path / "tree").rglob("libextra.a"))) == ["extra.c.obj"]
    again = ensure_units(kept, lambda listing: set(), "b", root=tmp_path / "cache")
    assert (again.compiled, again.alongside, len(asked)) == (0, 0, 1)  # nothing to build


def _cxx_library(src: Path, units: dict[str, str]) -> LibrarySpec:
    src.mkdir(parents=True, exist_ok=True)
    (src / "schema.h").write_text("#pragma once\ninline int schema(int x) { return x * 5 + 1; }\n"
                                  "#ifdef WANT_TWICE\ninline int twice(int x) { return 2 * x; }\n"
                                  "#endif\n")
    for name, text in units.items():
        (src / name).write_text(text, encoding="utf-8")
    return LibrarySpec(name="cxxdemo", groups=[SourceGroup("all", [str(src / n) for n in units],
                                                           ["-O2"])],
                       include_dirs=[str(src)], defines={}, cpu_flags=M55,
                       common_flags=[], identity={"engine": "cxxdemo"})


def _cxx_units(spec: LibrarySpec, cache: Path, src: Path, pays_from: int) -> UnitLibrary:
    def select(listing: tuple[TargetUnits, ...]) -> set[str]:
        return {u.source for t in listing for u in t.units}

    schema = Precompiled(src / "schema.h", pays_from=pays_from)
    return ensure_units(spec_units(spec, root=cache, precompiled=schema), select, "all",
                        root=cache)


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CMake each build adds for its precompiled headers, as the build goes."""
    made: list[str] = []
    real = unit_build.precompile_cmake

    def recorded(*args: Any) -> str:
        text: str = real(*args)
        if text:  # a build no set of options pays for adds nothing
            made.append(text)
        return text

    monkeypatch.setattr(unit_build, "precompile_cmake", recorded)
    return made


def _code(archive: Path) -> list[str]:
    """Every member's code and relocations (the lines naming a member's path left out)."""
    out = subprocess.run(["arm-none-eabi-objdump", "-d", "-r", str(archive)],
                         capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines()
            if "file format" not in line and not line.startswith("In archive")]


def test_units_reaching_a_shared_header_compile_with_it_precompiled_to_the_same_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_COMPILER_CACHE", "off")
    units = {f"u{i}.cc": f'#include "schema.h"\nint u{i}(int x) {{ return schema(x) + {i}; }}\n'
             for i in range(3)}
    made = _recorded(monkeypatch)
    spec = _cxx_library(tmp_path / "src", units)
    with_header = _cxx_units(spec, tmp_path / "with", tmp_path / "src", pays_from=3)
    without = _cxx_units(spec, tmp_path / "without", tmp_path / "src", pays_from=4)
    assert with_header.compiled == without.compiled == 3
    assert len(made) == 1 and made[0].count("COMPILE_OPTIONS") == 3  # fewer than 4 do not pay
    assert _code(with_header.archives[0]) == _code(without.archives[0])


def test_a_build_that_fails_with_the_precompiled_header_compiles_again_without_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_COMPILER_CACHE", "off")
    # late.cc defines WANT_TWICE before its include: with the header forced first the header
    # is already read without it and twice() is undeclared, a failure as a compiler's own with
    # the header would be.
    units = {f"u{i}.cc": f'#include "schema.h"\nint u{i}(int x) {{ return schema(x); }}\n'
             for i in range(2)}
    units["late.cc"] = ('#define WANT_TWICE\n#include "schema.h"\n'
                        "int late(int x) { return twice(x); }\n")
    made = _recorded(monkeypatch)
    spec = _cxx_library(tmp_path / "src", units)
    done = _cxx_units(spec, tmp_path / "cache", tmp_path / "src", pays_from=3)
    assert len(made) == 1 and made[0].count("COMPILE_OPTIONS") == 3  # the header was tried
    assert done.compiled == 3 and _members(done.archives[0]) == ["u0.cc", "u1.cc", "late.cc"]

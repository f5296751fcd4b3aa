"""Real builds: an unchanged rebuild runs no compiler; a changed input rebuilds what it must."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulated_firmware import fixture_contribution, require_tools

from hpx_core.boards import get_board
from hpx_core.contract import FirmwareContribution
from hpx_core.errors import BuildError
from hpx_core.firmware import (
    HarnessSettings,
    build_project,
    detect_toolchains,
    get_toolchain,
    render_project,
)
from hpx_core.firmware.builder import RegionOverflowError
from hpx_core.selftest.layers import selftest_contribution

pytestmark = pytest.mark.emulated


def test_second_build_of_unchanged_inputs_compiles_nothing(tmp_path: Path) -> None:
    require_tools()
    board = get_board("qemu-m55")
    gcc = get_toolchain("arm-none-eabi-gcc")
    first_project = render_project(
        tmp_path, board, selftest_contribution(board), HarnessSettings("selftest")
    )
    first = build_project(first_project, gcc)
    assert first.configured and first.compiled == 13 and not first.fingerprint_unchanged
    elf_mtime = first.elf.stat().st_mtime_ns

    again = render_project(
        tmp_path, board, selftest_contribution(board), HarnessSettings("selftest")
    )
    second = build_project(again, gcc)
    assert second.fingerprint == first.fingerprint and second.fingerprint_unchanged
    assert second.no_work and second.compiled == 0 and not second.configured
    assert second.elf.stat().st_mtime_ns == elf_mtime

    changed = render_project(
        tmp_path, board, selftest_contribution(board), HarnessSettings("selftest", iterations=4)
    )
    third = build_project(changed, gcc)
    assert third.fingerprint != first.fingerprint and not third.fingerprint_unchanged
    assert third.compiled >= 1 and not third.no_work


def test_compile_error_is_a_build_error_with_the_log(tmp_path: Path) -> None:
    require_tools()
    board = get_board("qemu-m4")
    broken = fixture_contribution("error_engine")
    broken = type(broken)(files={"error_engine.c": "this is not C\n"}, sources=("error_engine.c",))
    project = render_project(tmp_path, board, broken, HarnessSettings("broken"))
    with pytest.raises(BuildError) as caught:
        build_project(project, get_toolchain("arm-none-eabi-gcc"))
    assert "firmware build failed" in caught.value.message
    assert str(tmp_path / "build.log") in caught.value.hint
    assert "error" in (tmp_path / "build.log").read_text()


@pytest.mark.parametrize(("toolchain", "said"), [
    ("arm-none-eabi-gcc", "region `ITCM' overflowed by"),
    ("clang", "will not fit in region 'ITCM': overflowed by"),
])
def test_a_full_region_is_named_with_the_linkers_count(toolchain: str, said: str,
                                                       tmp_path: Path) -> None:
    """ld's "region `ITCM' overflowed by N bytes" (lld: "section ... will not fit in region
    'ITCM': overflowed by N bytes") becomes a RegionOverflowError, not the log."""
    require_tools()
    found = detect_toolchains()[toolchain]
    if not found.available:
        pytest.skip(f"{toolchain}: {found.reason}")
    board = get_board("qemu-m55")
    source = fixture_contribution("error_engine").files["error_engine.c"].replace(
        "    (void)mode;\n    return 0;", "    return hpx_test_blob[mode];")
    blob = FirmwareContribution(
        files={"blob.c": "const unsigned char hpx_test_blob[600 * 1024] = {1};\n" + source},
        sources=("blob.c",))
    project = render_project(tmp_path, board, blob, HarnessSettings("blob"))
    with pytest.raises(RegionOverflowError) as caught:
        build_project(project, get_toolchain(toolchain))
    assert caught.value.region == "ITCM"
    assert caught.value.excess is not None and caught.value.excess > 600 * 1024 - 512 * 1024
    assert caught.value.message == (
        f"the firmware overflows memory region ITCM by {caught.value.excess:,} bytes")
    assert said in (tmp_path / "build.log").read_text()


def test_a_toolchain_whose_identity_changed_configures_afresh(tmp_path: Path) -> None:
    """The toolchain file and CMake's cache hold what the toolchain was (its libraries, for
    clang): another identity under the same name and version starts a new build folder; a
    stamp from before identities were kept, with the same version, does not."""
    require_tools()
    board = get_board("qemu-m55")
    gcc = get_toolchain("arm-none-eabi-gcc")

    def build() -> bool:
        project = render_project(tmp_path, board, selftest_contribution(board),
                                 HarnessSettings("selftest"))
        return build_project(project, gcc).configured

    assert build()
    stamp = tmp_path / "hpx-build.json"
    data = json.loads(stamp.read_text())
    assert data["toolchain_identity"] == gcc.identity
    stamp.write_text(json.dumps(data | {"toolchain_identity": "other libraries"}))
    assert build()
    del data["toolchain_identity"]  # as written before: the version alone
    stamp.write_text(json.dumps(data))
    assert not build()

"""hpx doctor: required tools follow the chosen toolchain and board."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.pipeline.doctor import run_doctor
from hpx_core.plugins import load_registry


def test_missing_qemu_is_required_only_for_emulated_boards(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    registry = load_registry(disabled=[])
    emulated = run_doctor(registry, toolchain="arm-none-eabi-gcc", emulated=True)
    assert not emulated.healthy
    qemu = next(c for c in emulated.checks if c.name == "qemu-system-arm")
    assert (qemu.ok, qemu.required, qemu.detail) == (False, True, "not found on PATH")
    silicon = run_doctor(registry, toolchain="arm-none-eabi-gcc", emulated=False)
    assert not next(c for c in silicon.checks if c.name == "qemu-system-arm").required


def test_atfe_reports_why_it_is_unavailable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ATFE_ROOT", str(tmp_path))
    report = run_doctor(load_registry(disabled=[]), toolchain="atfe", emulated=None)
    atfe = next(c for c in report.checks if c.name == "toolchain atfe")
    assert not atfe.ok and atfe.required
    assert f"not available: ATFE_ROOT {tmp_path} is not an ATfE installation" in atfe.detail
    assert "set ATFE_ROOT" in atfe.detail  # the chosen toolchain says what to do
    assert not report.healthy


def test_every_toolchain_is_listed_and_armclang_is_not_supported() -> None:
    report = run_doctor(load_registry(disabled=[]), toolchain="clang", emulated=None)
    chains = {c.name: c for c in report.checks if c.name.startswith("toolchain ")}
    assert set(chains) == {"toolchain arm-none-eabi-gcc", "toolchain clang", "toolchain atfe",
                           "toolchain armclang"}
    armclang = chains["toolchain armclang"]
    assert not armclang.ok and not armclang.required
    assert armclang.detail.startswith("not supported: ")
    clang = chains["toolchain clang"]
    assert clang.required
    assert ("clang version" in clang.detail) if clang.ok else ("not available" in clang.detail)


def test_real_tools_are_found_with_versions() -> None:
    report = run_doctor(load_registry(disabled=[]), toolchain="arm-none-eabi-gcc", emulated=True)
    git = next(c for c in report.checks if c.name == "git")
    assert git.ok and git.detail[0].isdigit()


def test_engine_packages_are_required_only_for_their_engine() -> None:
    registry = load_registry(disabled=[])
    for engine, required in (("helia-aot", True), ("tflm", False), (None, False)):
        report = run_doctor(registry, toolchain="arm-none-eabi-gcc", emulated=False, engine=engine)
        check = next(c for c in report.checks if c.name == "package helia-aot")
        assert check.required is required


def test_each_attached_probe_is_shown_with_its_path_and_what_it_lacks() -> None:
    from hpx_core.boards import get_board
    from hpx_core.probe.probes import ProbeInfo
    from hpx_core.probe.route import ProbeDesk

    jlink = ProbeInfo("000440112233", "Segger J-Link OB-Apollo", "Segger", "J-Link OB-Apollo")
    dap = ProbeInfo("0240000032044e45", "ARM DAPLink CMSIS-DAP", "ARM", "DAPLink CMSIS-DAP")
    desk = ProbeDesk((jlink, dap), "0.46.0", "8.10f", pyocd_knows=lambda name: False)
    board = get_board("apollo510_evb")
    report = run_doctor(load_registry(disabled=[]), toolchain="arm-none-eabi-gcc",
                        emulated=False, board=board, desk=desk)
    probes = {c.name: c for c in report.checks if c.name.startswith("probe ")}
    through_jlink = probes["probe 000440112233"]
    assert through_jlink.ok and through_jlink.required
    assert through_jlink.detail == ("apollo510_evb: jlink (device AP510NFA-CBR) - a J-Link "
                                    "probe: SEGGER's device support flashes the part")
    through_pyocd = probes["probe 0240000032044e45"]
    assert not through_pyocd.ok and through_pyocd.required
    assert through_pyocd.detail.endswith(
        "missing: Ambiq's CMSIS pack for ap510nfa_cbr (--pack PATH, or `pyocd pack install "
        "ap510nfa_cbr`)")
    assert not report.healthy  # the pack the CMSIS-DAP probe needs is missing
    software = {c.name: c for c in report.checks if c.name in ("pyocd", "J-Link software")}
    assert software["pyocd"].detail == "0.46.0" and software["J-Link software"].ok


def test_without_a_board_every_apollo_board_is_routed_and_nothing_is_required() -> None:
    from hpx_core.probe.probes import ProbeInfo
    from hpx_core.probe.route import ProbeDesk

    jlink = ProbeInfo("000440112233", "Segger J-Link OB-Apollo", "Segger", "J-Link OB-Apollo")
    desk = ProbeDesk((jlink,), "0.46.0", None, pyocd_knows=lambda name: False)
    report = run_doctor(load_registry(disabled=[]), toolchain="arm-none-eabi-gcc",
                        emulated=None, desk=desk)
    lines = [c for c in report.checks if c.name == "probe 000440112233"]
    assert [c.detail.split(":")[0] for c in lines] == [
        "apollo510_evb", "apollo330mP_evb", "apollo4p_evb", "apollo3p_evb"]
    assert all(not c.required and not c.ok for c in lines)  # no J-Link software, no pack
    assert "SEGGER J-Link Software" in lines[0].detail


def test_a_jlink_board_without_the_jlink_software_is_unhealthy_and_says_what_to_install() -> None:
    from hpx_core.boards import get_board
    from hpx_core.probe.route import ProbeDesk

    desk = ProbeDesk((), "0.46.0", None, pyocd_knows=lambda name: False)
    report = run_doctor(load_registry(disabled=[]), toolchain="arm-none-eabi-gcc",
                        emulated=False, board=get_board("apollo510_evb"), desk=desk)
    (jlink,) = [c for c in report.checks if c.name == "J-Link software"]
    assert jlink.required and not jlink.ok and not report.healthy
    assert jlink.detail == (
        "not found: apollo510_evb's on-board J-Link flashes and resets the part through it; "
        "install the SEGGER J-Link Software (https://www.segger.com/downloads/jlink) (its "
        "J-Link library and J-Link Commander, JLinkExe)")
    emulated = run_doctor(load_registry(disabled=[]), toolchain="arm-none-eabi-gcc",
                          emulated=True, board=get_board("qemu-m55"), desk=desk)
    assert not next(c for c in emulated.checks if c.name == "J-Link software").required

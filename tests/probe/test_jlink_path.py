"""The way a run reaches the part: SEGGER J-Link's device support, or pyocd with the pack.

The J-Link path is the real runner over hpx's pylink adapter, with a fake pylink driving the
same fake target as the fake pyocd (tests/support/fake_pylink.py) and a fake J-Link Commander
on PATH for the reset; the board data names the device for each path.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from emulated_firmware import selftest_build
from fake_pylink import fake_pylink, install_commander
from fake_pyocd import Bench, FakeError, FakeProbe, FakeTarget, FakeTargetSupportError, Firmware
from probe_board import BOARD, CB, RECORDED, RING
from probe_paths import commander_on_path

from hpx_core.boards import all_boards
from hpx_core.errors import CaptureError, RunError
from hpx_core.probe.commander import RESET_SCRIPT, find_commander
from hpx_core.probe.jlink import load_image
from hpx_core.probe.probes import ProbeInfo
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.route import JLINK, JLINK_SOFTWARE, PYOCD, choose_route
from hpx_core.probe.runner import Links, ProbeRunner, ProbeSettings, run_on_probe

FAST = ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0)  # a loaded host is slow
DEVICE = "AP510NFA-CBR"
J_BOARD = attrs.evolve(BOARD, silicon=attrs.evolve(BOARD.silicon, jlink_device=DEVICE))
SILICON = [b for b in all_boards().values() if b.silicon is not None]


@pytest.fixture(scope="module")
def elf() -> Path:
    built: Path = selftest_build("qemu-m55")[1].elf
    return built


def bench(probe: FakeProbe | None = None) -> Bench:
    fw = Firmware(stream=RECORDED, cb_address=CB, buffer_address=RING)
    target = FakeTarget([(r.origin, r.length) for r in BOARD.memory], fw)
    found = probe or FakeProbe("123456780", "Segger J-Link OB-Apollo")
    return Bench([found], target, known_targets={"ap510nfa_cbr"})


def pyocd(desk: Bench) -> PyocdApi:
    return PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                    FakeTargetSupportError)


def test_a_jlink_probe_flashes_and_captures_through_jlink(
        elf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = bench()
    module, lib = fake_pylink(desk, {DEVICE})
    commander_on_path(tmp_path, lib, monkeypatch)
    links = Links(pyocd(desk), module, "8.10f", find_commander(module))
    run = ProbeRunner(J_BOARD, FAST, links=links).execute(elf)
    assert run.stream == RECORDED
    assert lib.connected == [DEVICE, DEVICE]  # the flashing and the capturing connection
    assert lib.flashed == load_image(elf) and lib.flashed  # the ELF's loadable bytes
    assert desk.sessions == [] and desk.flashed == []  # pyocd only listed the probe
    assert lib.closed == 2 and desk.target.attached == 0
    assert (run.details["flash_path"], run.details["device"]) == (JLINK, DEVICE)
    assert run.details["probe_software"] == "J-Link 8.10f"
    assert run.identity["flash_path"] == JLINK


def test_jlink_without_the_device_in_its_list_is_one_error(elf: Path) -> None:
    desk = bench()
    module, lib = fake_pylink(desk, {"AMA3B2KK-KBR"})
    with pytest.raises(RunError) as caught:
        run_on_probe(J_BOARD, elf, links=Links(pyocd(desk), module), settings=FAST)
    assert caught.value.message == ("J-Link does not know device 'AP510NFA-CBR' (Unsupported "
                                    "device selected.)")
    assert caught.value.hint == (f"update the {JLINK_SOFTWARE}: its device list must name "
                                 "AP510NFA-CBR")
    assert lib.closed == 1 and desk.target.attached == 0 and not lib.flashed


def test_a_pack_takes_pyocd_even_through_a_jlink(elf: Path, tmp_path: Path) -> None:
    desk = bench()
    module, lib = fake_pylink(desk, {DEVICE})
    pack = tmp_path / "AmbiqMicro.Apollo_DFP.pack"
    pack.write_bytes(b"PK")
    settings = attrs.evolve(FAST, packs=(pack,))
    run = ProbeRunner(J_BOARD, settings, links=Links(pyocd(desk), module)).execute(elf)
    assert run.details["flash_path"] == PYOCD and run.details["device"] == "ap510nfa_cbr"
    assert lib.connected == [] and desk.flashed
    flashing = desk.sessions[0].options
    assert flashing == {"target_override": "ap510nfa_cbr", "pack": [str(pack)],
                        "jlink.device": DEVICE}  # J-Link under pyocd knows the part too


def probe(vendor: str, product: str) -> ProbeInfo:
    return ProbeInfo("0001", f"{vendor} {product}", vendor, product)


def test_each_probe_takes_its_path_and_says_what_it_lacks() -> None:
    board = next(b for b in SILICON if b.name == "apollo4p_evb")
    jlink = probe("Segger", "J-Link OB")
    dap = probe("ARM", "DAPLink CMSIS-DAP")
    assert choose_route(board, jlink, (), jlink=True) == choose_route(
        board, jlink, (), jlink=True, pyocd_knows=lambda _: False)
    assert choose_route(board, jlink, (), jlink=True).device == "AMAP42KP-KBR"
    no_software = choose_route(board, jlink, (), jlink=False, pyocd_knows=lambda _: True)
    assert (no_software.path, no_software.missing) == (PYOCD, (JLINK_SOFTWARE,))
    cmsis_dap = choose_route(board, dap, (), jlink=True, pyocd_knows=lambda _: False)
    assert (cmsis_dap.path, cmsis_dap.device) == (PYOCD, "amap42kp_kbr")
    assert cmsis_dap.missing == ("Ambiq's CMSIS pack for amap42kp_kbr (--pack PATH, or "
                                 "`pyocd pack install amap42kp_kbr`)",)
    known = choose_route(board, dap, (), jlink=True, pyocd_knows=lambda name: True)
    assert known.missing == ()


@pytest.mark.parametrize("board", SILICON, ids=lambda b: b.name)
def test_each_apollo_board_names_its_part_for_both_paths(board: object) -> None:
    silicon = board.silicon  # type: ignore[attr-defined]
    assert silicon.jlink_device and silicon.pyocd_target
    # one part, two spellings: the pack's name is J-Link's in lower case with underscores
    assert silicon.pyocd_target == silicon.jlink_device.lower().replace("-", "_")
    assert silicon.boot_handoff > 0


def test_commander_resets_an_apollo_part_and_lets_go(
        elf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = bench()
    module, lib = fake_pylink(desk, {DEVICE})  # pylink's reset would leave the core held
    commander_on_path(tmp_path / "bin", lib, monkeypatch)
    exe = find_commander(module)
    assert exe == tmp_path / "bin" / "JLinkExe"  # found on PATH
    run = ProbeRunner(J_BOARD, FAST, links=Links(pyocd(desk), module, "8.10f", exe)).execute(elf)
    assert run.stream == RECORDED
    assert lib.resets == ["commander"] and desk.target.resets == 1
    (command,) = lib.commands
    assert command["script"] == RESET_SCRIPT == "r\ng\nexit\n"
    argv = command["argv"]
    assert argv[argv.index("-Device") + 1] == DEVICE
    assert argv[argv.index("-SelectEmuBySN") + 1] == "123456780"
    assert (argv[argv.index("-If") + 1], argv[argv.index("-AutoConnect") + 1]) == ("SWD", "1")
    assert run.details["reset"] == "commander"
    assert "lets go between the reset and the application's start" in str(
        run.details["reset_why"])
    assert desk.target.attached == 0


def test_pylinks_reset_leaves_the_bootloader_holding_the_core(elf: Path) -> None:
    desk = bench()
    module, lib = fake_pylink(desk, {DEVICE})
    settings = attrs.evolve(FAST, rtt_wait=0.2)
    with pytest.raises(CaptureError, match="no SEGGER RTT control block found"):
        run_on_probe(J_BOARD, elf, links=Links(pyocd(desk), module), settings=settings)
    assert lib.resets == ["pylink"] and desk.target.polls == 0  # the application never ran


def test_without_commander_pylinks_reset_runs_and_says_so(elf: Path) -> None:
    desk = bench()
    module, lib = fake_pylink(desk, {DEVICE})
    lib.pylink_reset_holds = False  # a part whose bootloader hands off after pylink's reset
    run = ProbeRunner(J_BOARD, FAST, links=Links(pyocd(desk), module)).execute(elf)
    assert run.stream == RECORDED and lib.resets == ["pylink"]
    assert run.details["reset"] == "pylink"
    assert str(run.details["reset_why"]).startswith("J-Link Commander (JLinkExe) not found")


def test_a_failing_commander_is_one_error_and_nothing_is_held(
        elf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = bench()
    module, lib = fake_pylink(desk, {DEVICE})
    commander_on_path(tmp_path, lib, monkeypatch, exit_code=1,
                      output="Connecting to target via SWD\nCannot connect to target.\n")
    links = Links(pyocd(desk), module, "8.10f", find_commander(module))
    with pytest.raises(RunError) as caught:
        run_on_probe(J_BOARD, elf, links=links, settings=FAST)
    assert caught.value.message == ("J-Link Commander could not reset AP510NFA-CBR through "
                                    "probe 123456780 (exit 1): Cannot connect to target.")
    assert "J-Link Commander comes with the SEGGER J-Link Software" in caught.value.hint
    assert lib.closed == 1 and desk.target.attached == 0 and desk.target.resets == 0


def test_commander_is_found_beside_the_library_pylink_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install = tmp_path / "SEGGER" / "JLink"
    install.mkdir(parents=True)
    (install / "libjlinkarm.so").write_bytes(b"")
    module, lib = fake_pylink(bench(), {DEVICE})
    install_commander(install, lib)
    finder = staticmethod(lambda: iter([str(install / "libjlinkarm.so")]))
    library = type("Library", (), {name: finder for name in (
        "find_library_linux", "find_library_darwin", "find_library_windows")})
    module.library = type("library", (), {"Library": library})
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert find_commander(module) == install / "JLinkExe"
    assert find_commander(None) is None

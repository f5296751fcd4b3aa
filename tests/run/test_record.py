"""Run + check + bundle: faults, reported errors and hangs all leave a failed bundle."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from emulated_firmware import fixture_build, selftest_build, selftest_run

from hpx_core.errors import RunError
from hpx_core.firmware import symbol_inventory
from hpx_core.results import verify_bundle
from hpx_core.run import run_and_record
from hpx_core.run.record import judge
from hpx_core.run.runner import Execution
from hpx_core.runners import runner_for
from hpx_core.wire import parse_capture

pytestmark = pytest.mark.emulated


def _only_bundle(results: Path) -> Path:
    bundles = [p for p in results.iterdir() if not p.name.startswith(".")]
    assert len(bundles) == 1
    return bundles[0]


def test_fault_is_reported_with_pc_and_function(tmp_path: Path) -> None:
    project, built = fixture_build("fault_engine")
    with pytest.raises(RunError) as caught:
        run_and_record(runner_for(project.board), built.elf, tmp_path, engine="fault_engine")
    crash = next(s for s in symbol_inventory(built.elf).symbols if s.name == "hpx_fixture_crash")
    message = caught.value.message
    assert "HardFault at PC 0x" in message
    pc = int(message.split("PC 0x")[1][:8], 16)
    assert crash.address & ~1 <= pc < (crash.address & ~1) + crash.size
    assert f"in hpx_fixture_crash+0x{pc - (crash.address & ~1):x}" in message
    assert "called from hpx_engine_invoke" in message
    assert "UNDEFINSTR" in message and "FORCED" in message
    bundle = _only_bundle(tmp_path)
    assert str(bundle) in caught.value.hint
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["validity"] == "invalid"
    assert (
        summary["error"]["type"] == "RunError"
        and "hpx_fixture_crash" in summary["error"]["message"]
    )
    assert b" FAULT " in (bundle / "capture.bin").read_bytes()
    assert verify_bundle(bundle).status == "failed"


def test_engine_error_code_is_reported(tmp_path: Path) -> None:
    project, built = fixture_build("error_engine", "qemu-m4")
    with pytest.raises(RunError, match="error 42 in stage 'init'"):
        run_and_record(runner_for(project.board), built.elf, tmp_path, engine="error_engine",
                       logs={"run.log": b"what the engine's tools printed\n"})
    bundle = _only_bundle(tmp_path)
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"
    assert (bundle / "run.log").read_bytes() == b"what the engine's tools printed\n"
    capture = parse_capture((bundle / "capture.bin").read_bytes())
    assert capture.text_lines == ("init failed: no ?HPX model",)
    assert capture.of("ERROR")[0].number("code") == 42


def test_hang_becomes_a_timeout_with_a_failed_bundle(tmp_path: Path) -> None:
    project, built = fixture_build("hang_engine")
    with pytest.raises(RunError, match="did not finish within 2 s"):
        run_and_record(runner_for(project.board, timeout=2), built.elf, tmp_path,
                       engine="hang_engine")
    bundle = _only_bundle(tmp_path)
    run = json.loads((bundle / "run.json").read_text())
    assert run["timed_out"] is True
    assert (bundle / "capture.bin").read_bytes().startswith(b"@HPX 0 START")


@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
def test_cpp_glue_with_static_constructors_runs(tmp_path: Path, board: str) -> None:
    project, built = fixture_build("cpp_engine", board)
    record = run_and_record(runner_for(project.board), built.elf, tmp_path, engine="cpp_engine")
    assert record.capture.metrics() == {"ready": 42}
    assert record.measurement.validity == "valid"
    assert [layer.name for layer in record.measurement.layers] == ["only"]


@pytest.mark.parametrize("cut", [False, True])
def test_an_emulator_that_fails_is_named_whatever_the_stream(cut: bool) -> None:
    """QEMU's own exit status only says whether QEMU failed (a lockup aborts it); the
    firmware's verdict is the stream's END record."""
    project, built = selftest_build("qemu-m55")
    stream = selftest_run("qemu-m55").stream
    died = Execution(stream[: len(stream) // 2] if cut else stream, 0.1,
                     {"stderr": "qemu: fatal: Lockup: can't escalate 3 to HardFault\nR00=0"}, {},
                     exit_code=-6)
    with pytest.raises(RunError, match=r"emulator exited with status -6 .*: qemu: fatal: Lockup"):
        judge(project.board, built.elf, died, 60.0)
    assert judge(project.board, built.elf, attrs.evolve(died, stream=stream, exit_code=0),
                 60.0).status == 0

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

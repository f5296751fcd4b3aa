"""``hpx verify-kernels``: argument errors (the checks on real ELFs run in the executorch e2e)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.cli import main


def test_missing_elf_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify-kernels", "--engine", "executorch", "--backend", "arm",
                 str(tmp_path / "none.elf")])
    assert code == 2
    assert "ELF not found" in capsys.readouterr().err


def test_unknown_engine_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elf = tmp_path / "x.elf"
    elf.write_bytes(b"\x7fELF")
    code = main(["verify-kernels", "--engine", "nope", "--backend", "arm", str(elf)])
    assert code != 0
    assert "unknown engine 'nope'" in capsys.readouterr().err


def test_provider_is_the_backend_s_earlier_spelling(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    elf = tmp_path / "x.elf"
    elf.write_bytes(b"\x7fELF")
    code = main(["verify-kernels", "--engine", "nope", "--provider", "arm", str(elf)])
    assert code != 0
    assert "unknown engine 'nope'" in capsys.readouterr().err  # taken, then the engine refused
    code = main(["verify-kernels", "--engine", "nope", "--backend", "ns", "--provider", "arm",
                 str(elf)])
    assert code == 2
    assert "disagree" in capsys.readouterr().err
    assert "--provider" not in _help(capsys)


def _help(capsys: pytest.CaptureFixture[str]) -> str:
    main(["verify-kernels", "--help"])
    return capsys.readouterr().out

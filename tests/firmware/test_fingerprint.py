"""The build fingerprint moves with every input and only with them."""

from __future__ import annotations

from pathlib import Path

from hpx_core.boards import get_board
from hpx_core.contract import FirmwareContribution, SourceRepo, SourceSet
from hpx_core.firmware import HarnessSettings, Toolchain, render_project
from hpx_core.firmware.fingerprint import build_fingerprint, read_stamp

GLUE = FirmwareContribution(files={"glue.c": "int x;\n"}, sources=("glue.c",))
GCC = Toolchain("arm-none-eabi-gcc", True, Path("/usr/bin/arm-none-eabi-gcc"), "gcc 12.2.1")


def _sources(commit: str) -> SourceSet:
    return SourceSet(
        (
            SourceRepo(
                "tflite-micro",
                "https://example.invalid/tflm",
                commit,
                Path("/src/tflm"),
                "Apache-2.0",
            ),
        )
    )


def test_same_inputs_same_fingerprint(tmp_path: Path) -> None:
    board = get_board("qemu-m55")
    first = build_fingerprint(render_project(tmp_path, board, GLUE, HarnessSettings("e")), GCC)
    again = build_fingerprint(render_project(tmp_path, board, GLUE, HarnessSettings("e")), GCC)
    assert first == again
    other = render_project(tmp_path, get_board("qemu-m4"), GLUE, HarnessSettings("e"))
    assert build_fingerprint(other, GCC) != first


def test_each_input_changes_the_fingerprint(tmp_path: Path) -> None:
    board = get_board("qemu-m55")
    project = render_project(tmp_path / "p", board, GLUE, HarnessSettings("e"))
    base = build_fingerprint(
        project, GCC, config={"k": 1}, model_sha256="aa", sources=_sources("1" * 40)
    )
    variants = {
        "config": build_fingerprint(
            project, GCC, config={"k": 2}, model_sha256="aa", sources=_sources("1" * 40)
        ),
        "model": build_fingerprint(
            project, GCC, config={"k": 1}, model_sha256="ab", sources=_sources("1" * 40)
        ),
        "commit": build_fingerprint(
            project, GCC, config={"k": 1}, model_sha256="aa", sources=_sources("2" * 40)
        ),
        "toolchain": build_fingerprint(
            project,
            Toolchain(GCC.name, True, GCC.compiler, "gcc 13.1"),
            config={"k": 1},
            model_sha256="aa",
            sources=_sources("1" * 40),
        ),
    }
    assert all(value != base for value in variants.values())
    assert len(set(variants.values())) == len(variants)
    glue_file = project.source_dir / "engine" / "glue.c"
    glue_file.write_text("int y;\n")
    assert (
        build_fingerprint(
            project, GCC, config={"k": 1}, model_sha256="aa", sources=_sources("1" * 40)
        )
        != base
    )


def test_unreadable_stamp_reads_as_empty(tmp_path: Path) -> None:
    assert read_stamp(tmp_path / "none.json") == {}
    (tmp_path / "bad.json").write_text("{not json")
    assert read_stamp(tmp_path / "bad.json") == {}
    (tmp_path / "list.json").write_text("[1]")
    assert read_stamp(tmp_path / "list.json") == {}

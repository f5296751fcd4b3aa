"""Rendering a firmware project: contents, engine glue placement, unchanged files untouched."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import jinja2
import pytest

from hpx_core.boards import get_board
from hpx_core.boards.icount import tick_conversion, wrap_cost_q16
from hpx_core.contract import FirmwareContribution, PlannedBuffer
from hpx_core.errors import BuildError
from hpx_core.firmware import HarnessSettings, load_project, render_project
from hpx_core.firmware.placement import ARENA_USES

GLUE = FirmwareContribution(
    files={"glue.c": "int x;\n", "sub/extra.h": "#define Y 1\n"},
    sources=("glue.c", "/abs/engine/lib.c"),
    include_dirs=("sub",),
    defines={"ENGINE_FLAG": "1"},
    cmake="target_link_libraries(hpx_app PRIVATE m)\n",
)


def test_project_holds_harness_board_counter_and_glue(tmp_path: Path) -> None:
    board = get_board("qemu-m4")
    project = render_project(tmp_path, board, GLUE, HarnessSettings("demo", iterations=5))
    src = project.source_dir
    assert (src / "hpx/harness/hpx_main.c").is_file()
    assert (src / "hpx/boards/qemu-m4/link.ld").is_file()
    assert not (src / "hpx/boards/qemu-m55").exists()
    assert (src / "hpx/counters/systick_icount/counter_systick.c").is_file()
    assert (src / "engine/sub/extra.h").read_text() == "#define Y 1\n"
    config = (src / "hpx/harness/hpx_config.h").read_text()
    assert '#define HPX_ENGINE_NAME "demo"' in config
    assert "#define HPX_ITERATIONS 5u" in config
    cmake = (src / "CMakeLists.txt").read_text()
    assert f"{src.as_posix()}/engine/glue.c" in cmake
    assert "/abs/engine/lib.c" in cmake
    assert f"{src.as_posix()}/engine/sub" in cmake
    assert "ENGINE_FLAG=1" in cmake
    assert "-mcpu=cortex-m4" in cmake and "-mfpu=fpv4-sp-d16" in cmake
    assert f'include("{src.as_posix()}/engine/engine.cmake")' in cmake


def test_rerender_keeps_unchanged_files_and_drops_stale_ones(tmp_path: Path) -> None:
    board = get_board("qemu-m55")
    project = render_project(tmp_path, board, GLUE, HarnessSettings("demo"))
    main_c = project.source_dir / "hpx/harness/hpx_main.c"
    before = main_c.stat().st_mtime_ns
    smaller = FirmwareContribution(files={"glue.c": "int x;\n"}, sources=("glue.c",))
    render_project(tmp_path, board, smaller, HarnessSettings("demo"))
    assert main_c.stat().st_mtime_ns == before
    assert not (project.source_dir / "engine/sub/extra.h").exists()
    assert not (project.source_dir / "engine/engine.cmake").exists()


def test_load_project_restores_what_was_rendered(tmp_path: Path) -> None:
    board = get_board("qemu-m55")
    arena = PlannedBuffer("tensor arena", "demo_arena", 4096, ARENA_USES)
    glue = attrs.evolve(GLUE, buffers=[arena])
    settings = HarnessSettings("demo", warmup=2, pmu_events=("STALL",))
    project = render_project(tmp_path, board, glue, settings)
    loaded = load_project(tmp_path)
    assert loaded.board == board and loaded.settings == project.settings
    assert loaded.files == project.files
    assert loaded.contribution.cmake == GLUE.cmake
    assert loaded.contribution.buffers == (arena,)  # `hpx build` re-checks their placement


def test_load_project_of_an_empty_folder_is_an_hpx_error(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="holds no hpx firmware project"):
        load_project(tmp_path)


def test_engine_files_may_not_escape_the_project(tmp_path: Path) -> None:
    bad = FirmwareContribution(files={"../evil.c": ""})
    with pytest.raises(BuildError, match="escapes the project"):
        render_project(tmp_path, get_board("qemu-m55"), bad, HarnessSettings("demo"))


def test_the_config_header_carries_the_counter_constants(tmp_path: Path) -> None:
    board = get_board("qemu-m55")
    project = render_project(tmp_path, board, FirmwareContribution(), HarnessSettings("demo"))
    header = (project.source_dir / "hpx/harness/hpx_config.h").read_text()
    conversion = tick_conversion(board)
    assert f"#define HPX_COUNTER_WRAP_COST_Q16 {wrap_cost_q16(board)}u" in header
    assert f"#define HPX_COUNTER_SPAN_MUL {conversion.multiplier}u" in header
    assert f"#define HPX_COUNTER_SPAN_SHIFT {conversion.shift}u" in header


def test_board_without_a_counter_template_is_refused(tmp_path: Path) -> None:
    board = attrs.evolve(get_board("qemu-m55"), name="future-board", counter="no_such_counter")
    with pytest.raises(BuildError, match="needs counter backend 'no_such_counter'"):
        render_project(tmp_path, board, GLUE, HarnessSettings("demo"))


def test_pmu_events_of_a_pass_are_compiled_in_only_when_asked_for(tmp_path: Path) -> None:
    events = ("INST_RETIRED", "STALL")
    asked = render_project(tmp_path / "a", get_board("qemu-m55"), GLUE,
                           HarnessSettings("demo", pmu_events=events))
    config = (asked.source_dir / "hpx/harness/hpx_config.h").read_text()
    assert "#define HPX_PMU_EVENTS ARM_PMU_INST_RETIRED, ARM_PMU_STALL," in config
    assert "#define HPX_MAX_EVENTS 2" in config
    plain = render_project(tmp_path / "b", get_board("qemu-m55"), GLUE, HarnessSettings("demo"))
    config = (plain.source_dir / "hpx/harness/hpx_config.h").read_text()
    assert "HPX_PMU_EVENTS" not in config and "HPX_MAX_EVENTS" not in config


def test_a_pass_switch_turns_on_its_define_and_no_other(tmp_path: Path) -> None:
    settings = HarnessSettings("demo", switches=("HPX_MEMORY_PASS", "HPX_CHECK_LAYERS"))
    project = render_project(tmp_path, get_board("qemu-m55"), GLUE, settings)
    config = (project.source_dir / "hpx/harness/hpx_config.h").read_text()
    assert "#define HPX_MEMORY_PASS 1" in config and "#define HPX_CHECK_LAYERS 1" in config
    assert "#define HPX_CHECK_ALL 0" in config


def test_a_switch_the_harness_does_not_have_is_refused() -> None:
    with pytest.raises(BuildError, match="switches among HPX_CHECK_ALL"):
        HarnessSettings("demo", switches=("HPX_TRACE_EVERYTHING",))


def test_a_project_file_that_names_the_old_settings_loads_with_their_switches(
        tmp_path: Path) -> None:
    render_project(tmp_path, get_board("qemu-m55"), GLUE, HarnessSettings("demo"))
    described = tmp_path / "hpx-project.json"
    data = json.loads(described.read_text())
    del data["settings"]["switches"]
    data["settings"] |= {"check_layers": "all", "memory": True}
    described.write_text(json.dumps(data))
    assert load_project(tmp_path).settings.switches == (
        "HPX_CHECK_ALL", "HPX_CHECK_LAYERS", "HPX_MEMORY_PASS")


def test_a_second_process_renders_the_same_from_compiled_templates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    board = get_board("qemu-m55")
    first = render_project(tmp_path / "a", board, GLUE, HarnessSettings("demo"))
    compiled = sorted((tmp_path / "cache" / "compiled-templates").iterdir())
    assert len(compiled) == 2  # the CMakeLists and the config header

    def no_compile(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a template was compiled again")

    monkeypatch.setattr(jinja2.Environment, "compile", no_compile)
    second = render_project(tmp_path / "b", board, GLUE, HarnessSettings("demo"))
    for rel in ("CMakeLists.txt", "hpx/harness/hpx_config.h"):
        made = [(p.source_dir / rel).read_text().replace(str(p.root), "ROOT")
                for p in (first, second)]
        assert made[0] == made[1]
    assert sorted((tmp_path / "cache" / "compiled-templates").iterdir()) == compiled

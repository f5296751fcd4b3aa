"""The precompiled header's users, read from the sources, and the CMake that makes it per set
of compile options that pays (the compile itself: ``tests/tflm/test_precompiled_e2e.py``)."""

from __future__ import annotations

import shlex
from pathlib import Path

from hpx_core.sdk.enginelib.precompiled import FOLDER, Precompiled, precompile_cmake


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _command(source: Path, *options: str) -> str:
    return shlex.join(["/usr/bin/arm-none-eabi-g++", "-DNDEBUG", *options, "-MD", "-MT",
                       "x.obj", "-MF", "x.obj.d", "-o", "x.obj", "-c", source.as_posix()])


def test_users_are_the_cxx_sources_reaching_the_header(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "schema/schema.h": "", "api.h": '#include "schema/schema.h"\n',
        "inc/deep.h": '#include "schema/schema.h"\n', "f.cc": '#include <deep.h>\n',
        "a.cc": '#include "api.h"\n', "b.cc": '#include "schema/schema.h"\n',
        "c.cc": "#include <stdint.h>\n", "d.c": '#include "api.h"\n',
        "mve.h": "#include <arm_mve.h>\n", "e.cc": '#include "api.h"\n#include "mve.h"\n',
    })
    chosen = Precompiled(tmp_path / "schema/schema.h")
    sources = [(tmp_path / n).as_posix() for n in ("a.cc", "b.cc", "c.cc", "d.c", "e.cc", "f.cc")]
    commands = {s: _command(Path(s), f"-I{tmp_path}", "-isystem", f"{tmp_path}/inc")
                for s in sources}
    assert chosen.users(commands) == [*sources[:2], sources[5]]  # no C file, no arm_mve.h
    # includes are found where each unit's command looks: without -isystem, no deep.h
    assert chosen.users({s: _command(Path(s)) for s in sources}) == sources[:2]


def test_one_header_per_set_of_options_that_pays(tmp_path: Path) -> None:
    header = tmp_path / "src/schema.h"
    _tree(tmp_path, {"src/schema.h": ""})
    size = [tmp_path / f"src/core{i}.cc" for i in range(3)]
    speed = [tmp_path / f"src/kernel{i}.cc" for i in range(2)]
    commands = {s.as_posix(): _command(s, "-Os") for s in size}
    commands |= {s.as_posix(): _command(s, "-O2") for s in speed}
    chosen = Precompiled(header, pays_from=3)
    users = {s: "lib" for s in sorted(commands)}
    text = precompile_cmake(chosen, users, commands, tmp_path / "tree")
    stub = tmp_path / "tree" / FOLDER / "0" / "schema.h"
    assert stub.read_text(encoding="utf-8") == f'#include "{header.as_posix()}"\n'
    assert text.count("add_custom_command") == 1  # the -O2 pair does not pay for its own
    assert f'add_custom_target(hpx_precompiled_0 DEPENDS "{stub}.gch")' in text
    assert f'"/usr/bin/arm-none-eabi-g++" "-DNDEBUG" "-Os" -x c++-header "{stub}"' in text
    assert "-MD" not in text and "x.obj" not in text and "core0.cc\" -o" not in text
    for source in size:
        assert f'SOURCE "{source}" TARGET_DIRECTORY lib APPEND PROPERTY COMPILE_OPTIONS' in text
        assert f'"-Winvalid-pch;-include;{stub}"' in text
    assert not any(str(s) in text for s in speed)
    assert "${HPX_COMPILER_LAUNCHER}" in text  # through the compiler cache when there is one
    assert precompile_cmake(Precompiled(header, pays_from=4), users,
                            commands, tmp_path / "other") == ""

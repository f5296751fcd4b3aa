"""Where a run's firmware project lives: a work folder keyed by the run's inputs, and locked.

Runs may share a cache and an output folder's parent, so a work folder is not named by the
output folder but by a key over everything that shapes the generated project: the model's
bytes, the engine with its backend and config, the board, the toolchain and the harness
settings. A run holds the folder's lock from firmware generation to its end. Runs with different
inputs never meet; runs with the same inputs take turns, and the later ones find the first one's
build (Ninja has nothing to compile), which keeps the warm re-run fast.
"""

from __future__ import annotations

import hashlib
import json
import re
from contextlib import ExitStack
from pathlib import Path

from hpx_core.cachedir import cache_root
from hpx_core.config import ProfileConfig
from hpx_core.config.validate import ValidatedConfig
from hpx_core.errors import ConfigError
from hpx_core.firmware.cmake_text import unbuildable
from hpx_core.firmware.toolchain import DEFAULT_TOOLCHAIN
from hpx_core.locks import hold
from hpx_core.models import ModelInfo
from hpx_core.pipeline.facts import firmware_settings

WORK_FOLDER = "hpx-work"
KEY_LENGTH = 12


def work_key(validated: ValidatedConfig, model: ModelInfo) -> str:
    """SHA-256 (hex) over the model's bytes and every setting that shapes the project."""
    document = {"model": model.sha256, "config": firmware_settings(validated)}
    return hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()


def work_root(config: ProfileConfig) -> Path:
    """``build.work_dir``, or ``hpx-work`` beside the output folder."""
    return config.build.work_dir or config.output.dir.parent / WORK_FOLDER


def check_buildable(validated: ValidatedConfig) -> None:
    """Refuse, before anything is fetched, a work folder or cache CMake cannot build in."""
    config = validated.config
    for path, field, hint in (
        (work_root(config).resolve(), "build.work_dir" if config.build.work_dir
         else "output.dir", "choose another output folder (--output-dir) or build.work_dir"),
        (cache_root().resolve(), None, "set HPX_CACHE_DIR to another folder"),
    ):
        bad = unbuildable(path)
        if bad is None:
            continue
        message = (f"{path} holds {' '.join(repr(c) for c in bad)}, which CMake cannot build "
                   f"in (its own compiler checks break)")
        if field is None:
            raise ConfigError(message, hint)
        raise validated.document.error(field, message, hint)


def claim_work_folder(validated: ValidatedConfig, model: ModelInfo, resources: ExitStack
                      ) -> Path:
    """This run's work folder, locked until ``resources`` closes (the run's end)."""
    config = validated.config
    engine = config.engine
    toolchain = config.target.toolchain
    shown = "" if toolchain == DEFAULT_TOOLCHAIN else f"-{toolchain}"  # GCC and LLVM side by side
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(model.path).stem)  # the key tells them apart
    name = (f"{stem}-{engine.type}-{engine.backend or 'default'}-{validated.board.name}"
            f"{shown}-{work_key(validated, model)[:KEY_LENGTH]}")
    folder = work_root(config) / name
    resources.enter_context(hold(folder.with_name(f".{name}.lock"), f"work folder {name}"))
    return folder

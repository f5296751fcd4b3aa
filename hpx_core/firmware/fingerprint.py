"""A fingerprint over every input of a firmware build.

If it equals the one stored after the last successful build, nothing needs to run: the
rendered files, the engine glue, the harness settings, the model, the toolchain's version and
the engine sources' commits are all the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from hpx_core.contract import SourceSet
from hpx_core.firmware.render import Project
from hpx_core.firmware.toolchain import Toolchain


def build_fingerprint(
    project: Project,
    toolchain: Toolchain,
    *,
    config: Mapping[str, object] | None = None,
    model_sha256: str | None = None,
    sources: SourceSet | None = None,
) -> str:
    """SHA-256 over the project's files and every other build input, as hex."""
    digest = hashlib.sha256()
    src = project.source_dir
    for rel in project.files:
        digest.update(f"file {rel}\n".encode())
        digest.update(hashlib.sha256((src / rel).read_bytes()).digest())
    contribution = project.contribution
    meta = {
        "board": project.board.name,
        "cpu_flags": list(project.board.cpu_flags),
        "toolchain": [toolchain.name, toolchain.identity, str(toolchain.compiler)],
        "config": config or {},
        "model_sha256": model_sha256,
        "engine_sources": []
        if sources is None
        else [[r.name, r.url, r.commit, str(r.path)] for r in sources.repos],
        "engine_inputs": dict(sorted(contribution.fingerprint_inputs.items())),
        "engine_sources_list": list(contribution.sources),
        "engine_include_dirs": list(contribution.include_dirs),
    }
    digest.update(json.dumps(meta, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def read_stamp(path: Path) -> dict[str, object]:
    """The stored build record, or an empty dict when there is none or it is unreadable."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}

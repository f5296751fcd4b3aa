"""The kernelbench engine's pinned repository, made locally, and git set up to clone it.

``examples/engines/kernelbench/make_kernels_repo.py`` makes the exact pinned commit; a private
global git config (``GIT_CONFIG_GLOBAL``) points the pinned URL at it, so nothing of this
machine's git setup is read or changed and nothing is fetched from the network.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "kernelbench"
KERNELS = EXAMPLE / "kernels.yaml"
PINNED_URL = "https://github.com/hpx-examples/kernelbench-kernels"


def kernels_git_env(root: Path) -> dict[str, str]:
    """Make the repository under ``root``; the environment that makes git clone it."""
    spec = importlib.util.spec_from_file_location("make_kernels_repo",
                                                  EXAMPLE / "make_kernels_repo.py")
    assert spec is not None and spec.loader is not None
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    mirror = root / "kernelbench-kernels"
    maker.make_repo(mirror)
    gitconfig = root / "gitconfig"
    gitconfig.write_text(f'[url "{mirror.as_uri()}"]\n\tinsteadOf = {PINNED_URL}\n')
    return {"GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}

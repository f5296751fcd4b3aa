"""A git child stopped by a signal is reported as interrupted, not as a missing commit.

The signal is real: git runs through a wrapper (first on ``PATH`` and as ``GIT_EXEC_PATH``'s
``git``) that kills itself with SIGKILL when asked for one chosen subcommand, the way the
out-of-memory killer or a job timeout stops it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitrepos import Upstream

from hpx_core.errors import SourceError
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.materialize import materialize_pin

WRAPPER = """#!/bin/sh
if [ "$1" = "$KILL_GIT_AT" ]; then kill -KILL $$; fi
exec {real} "$@"
"""


def real_exec_path() -> Path:
    done = subprocess.run(["git", "--exec-path"], check=True, capture_output=True, text=True)
    return Path(done.stdout.strip())


@pytest.fixture
def killer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git and its helpers through the wrapper; ``KILL_GIT_AT`` names the victim."""
    real = real_exec_path()
    wrapped = tmp_path / "git-exec"
    wrapped.mkdir()
    for entry in real.iterdir():
        if entry.name != "git":
            (wrapped / entry.name).symlink_to(entry)
    script = wrapped / "git"
    script.write_text(WRAPPER.format(real=real / "git"))
    script.chmod(0o755)
    monkeypatch.setenv("GIT_EXEC_PATH", str(wrapped))
    monkeypatch.setenv("PATH", f"{wrapped}:{Path('/usr/bin')}:{Path('/bin')}")


def _interrupted(error: SourceError) -> None:
    assert "interrupted" in error.message
    assert "run it again" in error.hint
    assert "insteadOf" not in error.hint and "commit exists" not in error.hint


@pytest.mark.parametrize(("kill_at", "said"), [
    ("clone", ("cannot clone {url}", "git was stopped by SIGKILL")),
    # git itself exits 128 with "fetch-pack: invalid index-pack output": no signal in sight
    ("index-pack", ("index-pack stopped without a word",)),
])
def test_a_killed_git_is_reported_as_interrupted(
    upstream: Upstream, killer: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    kill_at: str, said: tuple[str, ...],
) -> None:
    monkeypatch.setenv("KILL_GIT_AT", kill_at)
    store = SourceCache(tmp_path / "cache")
    with pytest.raises(SourceError) as caught:
        materialize_pin(upstream.pin(submodules=False), store)
    _interrupted(caught.value)
    for words in said:
        assert words.format(url=upstream.url("app")) in caught.value.message
    assert list(store.sources.iterdir()) == []


def test_an_interrupted_optional_submodule_is_not_taken_for_absent(
    upstream: Upstream, killer: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a submodule the server cannot give is absent; a killed fetch stops the run."""
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin_with_opt(required=False)
    assert materialize_pin(pin, store).absent_optional == ("external/opt",)
    monkeypatch.setenv("KILL_GIT_AT", "fetch")  # the next run fetches external/opt again
    with pytest.raises(SourceError) as caught:
        materialize_pin(pin, store)
    _interrupted(caught.value)
    assert caught.value.message.startswith("submodule external/opt of app:")
    assert "git was stopped by SIGKILL" in caught.value.message

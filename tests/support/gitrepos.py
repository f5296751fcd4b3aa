"""Real local git repositories standing in for upstream projects.

They are reached through ``https://example.invalid/...`` URLs rewritten by git ``insteadOf``
rules in a private global git config, exactly as a user's mirror would be; the machine's own
git configuration is not read.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import attrs
import pytest

from hpx_core.sources.pins import RepoPin, SubmodulePin

HOST = "https://example.invalid/upstream"
ENV = {
    "GIT_AUTHOR_NAME": "hpx tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "hpx tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def commit_file(repo: Path, name: str, text: str, message: str) -> str:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def new_repo(root: Path, name: str) -> Path:
    path = root / name
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


@attrs.frozen
class Upstream:
    """The repositories and the commits the tests pin."""

    root: Path
    app: Path
    c1: str  # first commit: no submodules
    c2: str  # adds submodules external/lib (nested third/leaf) and external/unused
    c3: str  # a later commit changing app.txt
    lost: str  # a commit that existed once and was pruned: unreachable
    lib_commit: str
    leaf_commit: str
    opt_commit: str  # gitlink of external/opt in c4, pruned from the opt repository
    c4: str  # c3 + submodule external/opt at opt_commit
    gitconfig: Path
    c5: str  # c4 + submodule external/heavy, whose assets/big.bin object is lost upstream
    heavy_commit: str

    def url(self, name: str) -> str:
        return f"{HOST}/{name}"

    def pin(self, commit: str | None = None, submodules: bool = True) -> RepoPin:
        subs = (
            (
                SubmodulePin("external/lib", "lib", self.url("lib"), self.lib_commit, "MIT"),
                SubmodulePin(
                    "external/lib/third/leaf", "leaf", self.url("leaf"), self.leaf_commit, "MIT"
                ),
            )
            if submodules
            else ()
        )
        return RepoPin(
            name="app",
            url=self.url("app"),
            commit=commit or self.c3,
            license="Apache-2.0",
            runs_on="any",
            markers=("app.txt",),
            submodules=subs,
        )

    def pin_with_opt(self, required: bool) -> RepoPin:
        base = self.pin(self.c4)
        opt = SubmodulePin(
            "external/opt", "opt", self.url("opt"), self.opt_commit, "MIT", required=required
        )
        return attrs.evolve(base, submodules=(*base.submodules, opt))

    def pin_with_heavy(self, exclude: tuple[str, ...]) -> RepoPin:
        base = self.pin(self.c5)
        heavy = SubmodulePin(
            "external/heavy", "heavy", self.url("heavy"), self.heavy_commit, "MIT", exclude=exclude
        )
        return attrs.evolve(base, submodules=(*base.submodules, heavy))


def _build(root: Path) -> Upstream:
    leaf = new_repo(root, "leaf")
    leaf_commit = commit_file(leaf, "leaf.txt", "leaf 1\n", "leaf 1")
    commit_file(leaf, "leaf.txt", "leaf 2\n", "leaf 2")  # the superproject records leaf 1
    lib = new_repo(root, "lib")
    commit_file(lib, "lib.txt", "lib 1\n", "lib 1")
    git(lib, "submodule", "add", "-q", f"{HOST}/leaf", "third/leaf")
    git(lib / "third/leaf", "checkout", "-q", leaf_commit)
    git(lib, "add", "third/leaf")
    git(lib, "commit", "-q", "-m", "leaf at 1")
    lib_commit = git(lib, "rev-parse", "HEAD")
    unused = new_repo(root, "unused")
    commit_file(unused, "unused.txt", "never initialized\n", "unused")
    app = new_repo(root, "app")
    c1 = commit_file(app, "app.txt", "app 1\n", "app 1")
    (app / ".gitignore").write_text("*.o\n")
    git(app, "add", ".gitignore")
    git(app, "submodule", "add", "-q", f"{HOST}/lib", "external/lib")
    git(app, "submodule", "add", "-q", f"{HOST}/unused", "external/unused")
    git(app, "commit", "-q", "-m", "submodules")
    c2 = git(app, "rev-parse", "HEAD")
    c3 = commit_file(app, "app.txt", "app 3\n", "app 3")
    opt = new_repo(root, "opt")
    commit_file(opt, "opt.txt", "opt 1\n", "opt 1")
    opt_commit = commit_file(opt, "opt.txt", "opt 2\n", "opt 2")
    git(app, "submodule", "add", "-q", f"{HOST}/opt", "external/opt")
    git(app, "commit", "-q", "-m", "optional submodule")
    c4 = git(app, "rev-parse", "HEAD")
    git(opt, "reset", "-q", "--hard", "HEAD~1")
    _prune(opt)
    heavy = new_repo(root, "heavy")
    (heavy / "assets").mkdir()
    (heavy / "assets" / "big.bin").write_bytes(bytes(range(256)) * 64)
    git(heavy, "add", "assets")
    heavy_commit = commit_file(heavy, "keep.txt", "kept\n", "heavy")
    git(app, "submodule", "add", "-q", f"{HOST}/heavy", "external/heavy")
    git(app, "commit", "-q", "-m", "heavy submodule")
    c5 = git(app, "rev-parse", "HEAD")
    # Lose the asset's object, as in a mirror that skipped its largest files.
    blob = git(heavy, "rev-parse", "HEAD:assets/big.bin")
    (heavy / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    git(app, "checkout", "-q", "-b", "doomed")
    lost = commit_file(app, "app.txt", "lost\n", "lost")
    git(app, "checkout", "-q", "main")
    git(app, "branch", "-q", "-D", "doomed")
    _prune(app)
    # Leave the remote's own work tree at an older commit: clones must not depend on it.
    git(app, "checkout", "-q", "--detach", c1)
    return Upstream(
        root,
        app,
        c1,
        c2,
        c3,
        lost,
        lib_commit,
        leaf_commit,
        opt_commit,
        c4,
        root / "gitconfig",
        c5,
        heavy_commit,
    )


def _prune(repo: Path) -> None:
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")


@pytest.fixture(scope="session")
def upstream_repos(tmp_path_factory: pytest.TempPathFactory) -> Upstream:
    """The repositories, built once per session; the environment is set only while building
    (a later test of the session sees the machine's git config again)."""
    root = tmp_path_factory.mktemp("upstream")
    config = root / "gitconfig"
    rules = "".join(
        f'[url "file://{root}/{name}"]\n\tinsteadOf = {HOST}/{name}\n'
        for name in ("app", "lib", "leaf", "unused", "opt", "heavy")
    )
    # Serve partial clones, as GitHub does (a local mirror needs this set to do the same).
    config.write_text(rules + "[uploadpack]\n\tallowFilter = true\n")
    with pytest.MonkeyPatch.context() as patch:
        _private_git(patch, config)
        return _build(root)


@pytest.fixture
def upstream(upstream_repos: Upstream, monkeypatch: pytest.MonkeyPatch) -> Upstream:
    """The repositories, reached through their private git config for this test."""
    _private_git(monkeypatch, upstream_repos.gitconfig)
    return upstream_repos


def _private_git(patch: pytest.MonkeyPatch, config: Path) -> None:
    for key, value in ENV.items():
        patch.setenv(key, value)
    patch.setenv("GIT_CONFIG_GLOBAL", str(config))


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every test sees only the private git config and its own cache folder."""
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    config = os.environ.get("GIT_CONFIG_GLOBAL", "")
    if not config.endswith("gitconfig"):
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))

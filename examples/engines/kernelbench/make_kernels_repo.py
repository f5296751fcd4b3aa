"""Make the git repository kernelbench pins, from the ``kernels/`` folder beside this script.

The kernelbench engine is built from a pinned commit of ``kernelbench-kernels``, a repository
that is not published anywhere: this script makes it. Every input of the commit hash is fixed
(file contents with LF line endings, modes 100644, author, committer, dates, message, no parent)
and git reads no configuration of the machine it runs on, so the commit it prints is the one in
``hpx_kernelbench/pins.toml`` on any machine. It also prints the ``insteadOf`` rule that lets
hpx clone the pinned URL from the new repository::

    python make_kernels_repo.py /srv/mirrors/kernelbench-kernels
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"
PINNED_URL = "https://github.com/hpx-examples/kernelbench-kernels"
IDENTITY = {
    "GIT_AUTHOR_NAME": "kernelbench",
    "GIT_AUTHOR_EMAIL": "kernelbench@example.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00+00:00",
    "GIT_COMMITTER_NAME": "kernelbench",
    "GIT_COMMITTER_EMAIL": "kernelbench@example.invalid",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00+00:00",
}
MESSAGE = "kernelbench-kernels 1.0.0: portable int8 conv2d and fully connected kernels\n"


def _git(repo: Path, *args: str, home: Path) -> str:
    """git with nothing of this machine's configuration (no global, system or template)."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C",
        **IDENTITY,
    }
    settings = ("-c", "core.autocrlf=false", "-c", "core.filemode=false",
                "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main")
    done = subprocess.run(["git", *settings, *args], cwd=repo, env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def kernel_files(source: Path = KERNELS) -> dict[str, bytes]:
    """Every file of ``source`` by its POSIX path, with CRLF normalized to LF."""
    files = sorted(p for p in source.rglob("*") if p.is_file())
    return {p.relative_to(source).as_posix(): p.read_bytes().replace(b"\r\n", b"\n")
            for p in files}


def make_repo(dest: Path, source: Path = KERNELS) -> str:
    """Create the repository in ``dest`` (absent or empty) and answer its commit."""
    dest = dest.resolve()
    if dest.exists() and any(dest.iterdir()):
        raise SystemExit(f"{dest} is not empty; give a new folder")
    dest.mkdir(parents=True, exist_ok=True)
    _git(dest, "init", "-q", "--template=", ".", home=dest)
    for rel, data in kernel_files(source).items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o644)
    _git(dest, "add", "--all", home=dest)
    _git(dest, "update-index", "--chmod=-x", *kernel_files(source), home=dest)
    _git(dest, "commit", "-q", "--no-verify", "-m", MESSAGE.strip(), home=dest)
    return _git(dest, "rev-parse", "HEAD", home=dest)


def insteadof_rule(dest: Path) -> str:
    """The git command that points the pinned URL at ``dest``."""
    return f"git config --global url.{dest.resolve().as_uri()}.insteadOf {PINNED_URL}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="folder for the new repository")
    args = parser.parse_args(argv)
    commit = make_repo(args.dest)
    print(f"commit {commit}")
    print(insteadof_rule(args.dest))
    return 0


if __name__ == "__main__":
    sys.exit(main())

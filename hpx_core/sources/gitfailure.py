"""Why a git command failed, in one line: what hpx asked for and what the server answered.

gitpython hands back an exit status and git's stderr, progress meters and all. A user needs to
know whether the server refused or lacked something (and which object), whether git was
interrupted by a signal, or whether the disk filled up, in which case the pinned commit (and
the server) is not to blame: a full disk reads as "could not fetch ... from promisor remote" or
"invalid index-pack output" further down git's answer.
"""

from __future__ import annotations

import re
import shutil
import signal
from collections.abc import Iterable
from pathlib import Path

import attrs
import git

from hpx_core.errors import SourceError

_PROGRESS = re.compile(
    r"^(remote: )?\s*(Counting|Compressing|Enumerating|Receiving|Resolving|Total|Unpacking|"
    r"Finding sources|Updating files|Checking out|Filtering content|Cloning into|"
    r"Submodule '[^']*' \(.*\) registered)"
)
_MISSING = re.compile(
    r"(?:unable to read|missing (?:blob|tree|commit|object)|could not read|bad object)"
    r"\s+'?([0-9a-f]{40,64})"
)
_DIED = re.compile(r"died of signal (\d+)")
_UNFILTERED = "filtering not recognized by server"
_SILENT_HELPER = "invalid index-pack output"
"""fetch-pack's last word when index-pack stopped without writing anything (killed)."""
_STDERR = "\n  stderr: '"
_DISK_FULL = ("No space left on device", "Disk quota exceeded")  # ENOSPC, EDQUOT


def mirror_hint(url: str) -> str:
    return (
        f"check that the commit exists at {url}; to use a local mirror: "
        f"git config --global url.<mirror>.insteadOf {url}"
    )


INCOMPLETE_MIRROR_HINT = (
    "the server (or the mirror `insteadOf` points at) lacks objects: let it serve partial "
    "clones (`git config uploadpack.allowFilter true` where it is served; for a file:// "
    "mirror, in your global git config), so only the pinned files are asked for, or make it "
    "complete"
)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def git_said(exc: git.GitCommandError) -> str:
    """git's own stderr: gitpython wraps it as ``\\n  stderr: '...'``."""
    text = str(exc.stderr or "")
    if text.startswith(_STDERR) and text.endswith("'"):
        text = text[len(_STDERR) : -1]
    return text


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""What git's stderr can carry that is no text (a NUL after a remote's message, colours)."""


def _meaningful(text: str) -> tuple[str, ...]:
    lines = (_CONTROL.sub("", line).strip() for line in re.split(r"[\r\n]+", text))
    return tuple(line for line in lines if line and not _PROGRESS.match(line))


@attrs.frozen
class GitFailure:
    """A failed git command: its exit status and the lines it said (progress left out)."""

    status: int | None
    lines: tuple[str, ...]

    @property
    def signal(self) -> str | None:
        """The signal that stopped git or one of its helpers, when one did."""
        if self.status is not None and self.status < 0:
            return _signal_name(-self.status)
        for line in self.lines:
            found = _DIED.search(line)
            if found:
                return _signal_name(int(found.group(1)))
        return None

    @property
    def interrupted(self) -> bool:
        """Stopped from outside (a signal, the out-of-memory killer), not refused."""
        if self.signal is not None:
            return True
        complaints = [line for line in self.lines if line.startswith(("fatal:", "error:"))]
        return (
            bool(complaints)
            and all(_SILENT_HELPER in line for line in complaints)
            and not self.server_lines
        )

    @property
    def disk_full(self) -> str | None:
        """git's line saying the disk (or the user's quota) is full, when one does."""
        return next((line for line in self.lines if any(m in line for m in _DISK_FULL)), None)

    @property
    def final(self) -> bool:
        """Asking again cannot help: git was stopped from outside or the disk is full."""
        return self.interrupted or self.disk_full is not None

    @property
    def unfiltered(self) -> bool:
        """The server does not serve partial clones: every object of the history was asked."""
        return any(_UNFILTERED in line for line in self.lines)

    @property
    def missing_object(self) -> str | None:
        for line in self.lines:
            found = _MISSING.search(line)
            if found:
                return found.group(1)
        return None

    @property
    def server_lines(self) -> tuple[str, ...]:
        """What the serving side said (``remote:`` lines, remote errors, a local upload-pack)."""
        said: list[str] = []
        for line in self.lines:
            if line.startswith("remote: "):
                text = line.removeprefix("remote: ").strip()
            elif "remote error:" in line:
                text = line.split("remote error:", 1)[1].strip()
            elif "upload-pack" in line:
                text = line.removeprefix("fatal: ").removeprefix("error: ")
            else:
                continue
            text = text.removeprefix("git ").strip()  # a local upload-pack repeats the remote error
            if text and text not in said:
                said.append(text)
        return tuple(said)

    def answer(self) -> str:
        """The server's answer, or git's own last complaint when the server said nothing."""
        if self.server_lines:
            return "the server answered: " + "; ".join(self.server_lines[:3])
        complaints = [line for line in self.lines if line.startswith(("fatal:", "error:"))]
        said = complaints or list(self.lines[-1:]) or [f"git exited with status {self.status}"]
        return "git said: " + "; ".join(dict.fromkeys(said[:2]))

    def interruption(self) -> str:
        if self.signal is not None:
            return f"git was stopped by {self.signal}"
        return "git's index-pack stopped without a word, as a process killed by a signal does"


def read_failure(exc: git.GitCommandError, said: Iterable[str] = ()) -> GitFailure:
    """``exc`` as a :class:`GitFailure`; ``said`` adds lines a progress handler consumed."""
    status = exc.status if isinstance(exc.status, int) else None
    lines = _meaningful("\n".join([*said, git_said(exc)]))
    return GitFailure(status, lines)


def _size(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def free_space(folder: Path) -> str:
    """What is free on the disk that holds ``folder`` (its nearest existing folder asked)."""
    existing = next((p for p in (folder, *folder.parents) if p.is_dir()), None)
    try:
        return f"{_size(shutil.disk_usage(existing or folder).free)} free"
    except OSError:
        return "free space unknown"


def disk_full_error(asked: str, failure: GitFailure, folder: Path, lead: str) -> SourceError:
    """The disk is full: said first, with the folder of the checkouts and what is free there."""
    return SourceError(
        f"{lead}cannot {asked}: the disk is full ({free_space(folder)} in {folder}; git said: "
        f"{failure.disk_full})",
        "free space on that disk (or set HPX_CACHE_DIR to a folder on a disk with room), then "
        "run it again; the pin is not to blame")


def failure_error(asked: str, url: str, failure: GitFailure, *, folder: Path,
                  context: str = "") -> SourceError:
    """One error for a failed fetch: what was asked (``asked`` names ``url``) and the answer;
    ``folder`` holds the checkout git was writing (the cache's sources folder)."""
    lead = f"{context}: " if context else ""
    if failure.disk_full is not None:
        return disk_full_error(asked, failure, folder, lead)
    if failure.interrupted:
        return SourceError(
            f"{lead}cannot {asked}: interrupted ({failure.interruption()})",
            "nothing half-done was kept; run it again (a timeout, Ctrl-C or the out-of-memory "
            "killer stops git from outside)",
        )
    missing = failure.missing_object
    if missing is not None:
        everything = (
            "; the server does not filter, so every object of the history was asked for"
            if failure.unfiltered
            else ""
        )
        return SourceError(
            f"{lead}cannot {asked}: the server lacks object {missing} ({failure.answer()})"
            f"{everything}",
            INCOMPLETE_MIRROR_HINT,
        )
    return SourceError(f"{lead}cannot {asked}: {failure.answer()}", mirror_hint(url))

"""Local checkouts in place of a pin (``engine.config.source_path``), verified and stamped.

A checkout exactly at the pin (with its required submodules) keeps the run qualified
(``qualified-with-engine-override``); anything else is accepted only when the user allows it
explicitly, and the run says ``development-overrides``. hpx never modifies an override.
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.errors import SourceError
from hpx_core.log import get_logger
from hpx_core.sources.checkout import head_of, inspect, toplevel_of
from hpx_core.sources.pins import RepoPin
from hpx_core.sources.records import Provenance, SourceRepo
from hpx_core.sources.versions import below_floor, source_version

log = get_logger()
UNVERSIONED = "unversioned"


def _check_root(pin: RepoPin, path: Path) -> None:
    if not path.is_dir():
        raise SourceError(
            f"source_path {path} for {pin.name} is not a folder",
            f"point it at a checkout of {pin.url}",
        )
    missing = [m for m in pin.markers if not (path / m).exists()]
    if missing:
        raise SourceError(
            f"source_path {path} is not the root of a {pin.name} checkout: {missing[0]} is missing",
            f"point it at the top folder of a checkout of {pin.url}",
        )
    top = toplevel_of(path)
    if top is not None and top != path.resolve():
        raise SourceError(
            f"source_path {path} is inside the git checkout {top}, not its root",
            f"point it at the top folder of a checkout of {pin.url}",
        )


def _records(pin: RepoPin, path: Path, commit: str) -> list[SourceRepo]:
    root = SourceRepo(pin.name, pin.url, commit, path, pin.license)
    subs = [
        SourceRepo(s.name, s.url, head_of(path / s.path) or UNVERSIONED, path / s.path, s.license)
        for s in pin.submodules
        if (path / s.path).exists() and head_of(path / s.path)
    ]
    return [root, *subs]


def use_override(
    pin: RepoPin, path: Path, *, allow_unpinned: bool = False
) -> tuple[list[SourceRepo], Provenance]:
    """Verify ``path`` as a stand-in for ``pin``; returns its records and provenance stamp.

    Raises :class:`SourceError` when it is not a checkout of that repository, or when it differs
    from the pin (commit, dirty tree, missing submodule, version below the floor) and
    ``allow_unpinned`` is False.
    """
    path = path.expanduser().resolve()
    _check_root(pin, path)
    problems: list[str] = []
    head = head_of(path)
    if head is None:
        problems.append("not a git checkout, so its commit cannot be verified")
    else:
        state = inspect(path, pin, check_origin=False, extra_submodules=True)
        if state.state != "at pin":
            problems.append(f"{state.state}: {state.detail}")
        elif state.absent_optional:
            problems.append(f"optional submodules absent: {', '.join(state.absent_optional)}")
    if pin.version_file and pin.min_version:
        found = source_version(pin, path)
        if below_floor(found, pin.min_version):
            problems.append(f"version {found} is below the supported {pin.min_version}")
    commit = head or UNVERSIONED
    if not problems:
        log.info("using verified override", repo=pin.name, path=str(path), commit=commit)
        return _records(pin, path, commit), "qualified-with-engine-override"
    if not allow_unpinned:
        raise SourceError(
            f"source_path {path} for {pin.name} is not at the pin {pin.commit}: {problems[0]}",
            f"check out {pin.commit} there (with its submodules, clean), or allow development "
            "overrides explicitly to build from it anyway",
        )
    log.warning("development override", repo=pin.name, path=str(path), problems=problems)
    return _records(pin, path, commit), "development-overrides"

"""The compatibility baseline: which exact sources each engine and board family is built from.

The data lives in one file shipped with the core (``hpx_core/data/baseline.toml``). Plugins ask
for their pins here instead of hard-coding URLs, so one file decides what a qualified build is.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.errors import HpxError

RunsOn = Literal["any", "ambiq-cpu", "apollo-hardware"]
RUNS_ON: tuple[RunsOn, ...] = ("any", "ambiq-cpu", "apollo-hardware")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _subs(value: Iterable[SubmodulePin]) -> tuple[SubmodulePin, ...]:
    return tuple(value)


@attrs.frozen
class SubmodulePin:
    """A submodule, initialized at the commit its superproject records (checked: ``commit``)."""

    path: str
    name: str
    url: str
    commit: str
    license: str
    required: bool = True
    exclude: tuple[str, ...] = attrs.field(default=(), converter=_strs)


@attrs.frozen
class RepoPin:
    """One repository at one exact commit, with what its license allows."""

    name: str
    url: str
    commit: str
    license: str
    runs_on: RunsOn
    markers: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    submodules: tuple[SubmodulePin, ...] = attrs.field(default=(), converter=_subs)
    version: str | None = None
    min_version: str | None = None
    version_file: str | None = None
    version_pattern: str | None = None
    exclude: tuple[str, ...] = attrs.field(default=(), converter=_strs)


@attrs.frozen
class PackagePin:
    """A Python distribution an engine runs.

    ``min_version`` is the supported floor; ``pairs_with`` a release known to match the pinned
    kernels, offered as the way out of a mismatch.
    """

    name: str
    distribution: str
    license: str
    runs_on: RunsOn
    min_version: str | None = None
    pairs_with: str | None = None


@attrs.frozen
class EngineSources:
    """What one engine needs: shared repositories plus per-backend additions."""

    name: str
    primary: str
    repositories: tuple[str, ...] = attrs.field(converter=_strs)
    packages: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    backends: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)


@attrs.frozen
class BoardFamily:
    """A family of boards and the board support their firmware is built with."""

    name: str
    cpu_vendor: str
    repositories: tuple[str, ...] = attrs.field(converter=_strs)


@attrs.frozen
class Baseline:
    """The whole baseline, validated: every name resolves, every commit is 40-hex."""

    repositories: Mapping[str, RepoPin]
    packages: Mapping[str, PackagePin]
    engines: Mapping[str, EngineSources]
    boards: Mapping[str, BoardFamily]
    common: tuple[str, ...] = attrs.field(converter=_strs)

    def engine(self, name: str) -> EngineSources:
        try:
            return self.engines[name]
        except KeyError:
            known = ", ".join(sorted(self.engines))
            raise HpxError(
                f"no pinned sources for engine {name!r}", f"known engines: {known}"
            ) from None

    def backends_of(self, engine: str, backend: str | None) -> tuple[str, ...]:
        """The backends meant: the named one, or all of them when none is named."""
        spec = self.engine(engine)
        if backend is None:
            return tuple(spec.backends)
        if backend not in spec.backends:
            known = ", ".join(sorted(spec.backends)) or "none"
            raise HpxError(
                f"engine {engine!r} has no backend {backend!r}", f"its backends: {known}"
            )
        return (backend,)

    def pins_for(self, engine: str, backend: str | None = None) -> tuple[RepoPin, ...]:
        """Repositories to materialize for ``engine`` (all backends' when ``backend`` is None)."""
        spec = self.engine(engine)
        names = list(self.common) + list(spec.repositories)
        for chosen in self.backends_of(engine, backend):
            names += spec.backends[chosen]
        return tuple(self.repositories[n] for n in dict.fromkeys(names))

    def packages_for(self, engine: str) -> tuple[PackagePin, ...]:
        return tuple(self.packages[n] for n in self.engine(engine).packages)

    def pins_for_board(self, family: str) -> tuple[RepoPin, ...]:
        try:
            board = self.boards[family]
        except KeyError:
            known = ", ".join(sorted(self.boards))
            raise HpxError(
                f"no board family {family!r} in the baseline", f"known families: {known}"
            ) from None
        return tuple(self.repositories[n] for n in board.repositories)

    def users_of(self, name: str) -> tuple[str, ...]:
        """Who needs repository ``name``: engines (``engine/backend``), board families, all."""
        if name in self.common:
            return ("every build",)
        users: list[str] = []
        for engine in self.engines.values():
            if name in engine.repositories:
                users.append(engine.name)
            users += [f"{engine.name}/{b}" for b, names in engine.backends.items() if name in names]
        users += [f"{b.name} boards" for b in self.boards.values() if name in b.repositories]
        return tuple(users)

    def pin(self, name: str) -> RepoPin:
        try:
            return self.repositories[name]
        except KeyError:
            raise HpxError(
                f"no pinned repository {name!r}",
                f"known repositories: {', '.join(sorted(self.repositories))}",
            ) from None


class BaselineError(HpxError):
    """The baseline file is malformed (a packaging bug, or a hand-edited file)."""


def _req(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value:
        raise BaselineError(f"baseline {where}: `{key}` must be a non-empty string")
    return value


def _opt(table: Mapping[str, Any], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise BaselineError(f"baseline {where}: `{key}` must be a string")
    return value


def _strings(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BaselineError(f"baseline {where}: `{key}` must be a list of strings")
    return tuple(value)


def _excludes(table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """Sparse-checkout patterns to leave out, anchored at the repository root."""
    patterns = _strings(table, "exclude", where)
    for pattern in patterns:
        if not pattern.startswith("/") or pattern == "/":
            raise BaselineError(
                f"baseline {where}: exclude pattern {pattern!r} must start with `/` and name a path"
            )
    return patterns


def _commit(table: Mapping[str, Any], where: str) -> str:
    value = _req(table, "commit", where)
    if not _COMMIT.fullmatch(value):
        raise BaselineError(
            f"baseline {where}: commit {value!r} is not a full 40-hex commit",
            "pin a commit (git rev-parse <tag>^{commit}); tags and branches move",
        )
    return value


def _url(table: Mapping[str, Any], where: str) -> str:
    url = _req(table, "url", where)
    if url.endswith(".git") or url.endswith("/"):
        raise BaselineError(
            f"baseline {where}: url {url!r} must not end in `.git` or `/`",
            "keep URLs bare so `insteadOf` prefix rewrites map them cleanly",
        )
    return url


def _runs_on(table: Mapping[str, Any], where: str) -> RunsOn:
    value = _req(table, "runs_on", where)
    if value not in RUNS_ON:
        raise BaselineError(f"baseline {where}: runs_on {value!r} is not one of {RUNS_ON}")
    return value


def _submodules(raw: Sequence[Any], where: str) -> tuple[SubmodulePin, ...]:
    subs: list[SubmodulePin] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        here = f"{where}.submodules[{index}]"
        if not isinstance(entry, dict):
            raise BaselineError(f"baseline {here}: must be a table")
        path = _req(entry, "path", here)
        if path.startswith("/") or ".." in Path(path).parts:
            raise BaselineError(f"baseline {here}: path {path!r} must be relative, inside")
        if path in seen:
            raise BaselineError(f"baseline {here}: {path!r} is listed twice")
        required = entry.get("required", True)
        if not isinstance(required, bool):
            raise BaselineError(f"baseline {here}: `required` must be true or false")
        subs.append(
            SubmodulePin(
                path=path,
                name=_req(entry, "name", here),
                url=_url(entry, here),
                commit=_commit(entry, here),
                license=_req(entry, "license", here),
                required=required,
                exclude=_excludes(entry, here),
            )
        )
        seen.add(path)
    for index, sub in enumerate(subs):
        for later in subs[index + 1 :]:
            if sub.path.startswith(later.path + "/"):
                raise BaselineError(
                    f"baseline {where}: submodule {sub.path!r} is listed before its parent "
                    f"{later.path!r}"
                )
    return tuple(subs)


def _repository(name: str, table: Any) -> RepoPin:
    where = f"repositories.{name}"
    if not isinstance(table, dict):
        raise BaselineError(f"baseline {where}: must be a table")
    pattern = _opt(table, "version_pattern", where)
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            msg = f"baseline {where}: version_pattern does not compile: {exc}"
            raise BaselineError(msg) from exc
    return RepoPin(
        name=name,
        url=_url(table, where),
        commit=_commit(table, where),
        license=_req(table, "license", where),
        runs_on=_runs_on(table, where),
        markers=_strings(table, "markers", where),
        submodules=_submodules(table.get("submodules", []), where),
        version=_opt(table, "version", where),
        min_version=_opt(table, "min_version", where),
        version_file=_opt(table, "version_file", where),
        version_pattern=pattern,
        exclude=_excludes(table, where),
    )


def _engine(
    name: str, table: Any, repos: Mapping[str, RepoPin], pkgs: Mapping[str, Any]
) -> EngineSources:
    where = f"engines.{name}"
    if not isinstance(table, dict):
        raise BaselineError(f"baseline {where}: must be a table")
    backends: dict[str, tuple[str, ...]] = {}
    for backend, spec in table.get("backends", {}).items():
        backends[backend] = _strings(spec, "repositories", f"{where}.backends.{backend}")
    engine = EngineSources(
        name=name,
        primary=_req(table, "primary", where),
        repositories=_strings(table, "repositories", where),
        packages=_strings(table, "packages", where),
        backends=backends,
    )
    names = [engine.primary, *engine.repositories, *(n for b in backends.values() for n in b)]
    _check_known(names, repos, where, "repository")
    _check_known(engine.packages, pkgs, where, "package")
    return engine


def _check_known(names: Sequence[str], known: Mapping[str, Any], where: str, kind: str) -> None:
    for name in names:
        if name not in known:
            raise BaselineError(f"baseline {where}: unknown {kind} {name!r}")


def parse_baseline(data: Mapping[str, Any]) -> Baseline:
    """Validate raw baseline data; any defect is a :class:`BaselineError`."""
    if data.get("schema") != 1:
        raise BaselineError(f"baseline: unsupported schema {data.get('schema')!r}; expected 1")
    repos = {n: _repository(n, t) for n, t in data.get("repositories", {}).items()}
    for name in repos:
        if not _NAME.fullmatch(name):
            raise BaselineError(f"baseline: repository name {name!r} is not a plain name")
    pkgs: dict[str, PackagePin] = {}
    for name, table in data.get("packages", {}).items():
        where = f"packages.{name}"
        pkgs[name] = PackagePin(
            name=name,
            distribution=_req(table, "distribution", where),
            license=_req(table, "license", where),
            runs_on=_runs_on(table, where),
            min_version=_opt(table, "min_version", where),
            pairs_with=_opt(table, "pairs_with", where),
        )
    engines = {n: _engine(n, t, repos, pkgs) for n, t in data.get("engines", {}).items()}
    boards: dict[str, BoardFamily] = {}
    for name, table in data.get("boards", {}).items():
        where = f"boards.{name}"
        board = BoardFamily(
            name=name,
            cpu_vendor=_req(table, "cpu_vendor", where),
            repositories=_strings(table, "repositories", where),
        )
        _check_known(board.repositories, repos, where, "repository")
        boards[name] = board
    common = _strings(data, "common", "top level")
    _check_known(common, repos, "common", "repository")
    return Baseline(
        repositories=repos, packages=pkgs, engines=engines, boards=boards, common=common
    )


def load_baseline_file(path: Path) -> Baseline:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BaselineError(f"baseline {path}: cannot be read: {exc}") from exc
    return parse_baseline(data)


@cache
def load_baseline() -> Baseline:
    """The baseline shipped with this version of the core (read once)."""
    text = resources.files("hpx_core").joinpath("data/baseline.toml").read_text(encoding="utf-8")
    try:
        return parse_baseline(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise BaselineError(f"the shipped baseline is not valid TOML: {exc}") from exc

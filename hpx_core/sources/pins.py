"""Pinned sources: which exact commits each engine and board family is built from.

A pin file (TOML, ``schema = 1``) declares repositories at full 40-hex commits with their
licenses and where code from them may run, Python packages an engine runs, engines (their
repositories per backend) and board families. The core ships one with what engines share
(CMSIS, kernel libraries, board SDKs: ``hpx_core/data/baseline.toml``); each engine plugin ships
its own beside its code and hands it over on its descriptor. :func:`merge_pins` makes one
catalog of them, recording which distribution declared each pin and refusing two different
pins under one name.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from hpx_core.errors import HpxError

CORE = "hpx-core"
_COMMIT = re.compile(r"[0-9a-f]{40}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_RUNS_ON = re.compile(r"any|cpu-vendor:[A-Za-z0-9][\w.-]*|board-family:[a-z0-9][\w.-]*")
RUNS_ON_FORMS = "any, cpu-vendor:<Vendor> or board-family:<family>"


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
    """One repository at one exact commit, with what its license allows.

    ``runs_on`` is ``any``, ``cpu-vendor:<Vendor>`` (the license permits execution only on
    CPUs that vendor made) or ``board-family:<family>`` (it drives that family's hardware).
    ``version``/``min_version`` and where the tree states its version let an engine refuse a
    source override below its floor.
    """

    name: str
    url: str
    commit: str
    license: str
    runs_on: str
    markers: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    submodules: tuple[SubmodulePin, ...] = attrs.field(default=(), converter=_subs)
    version: str | None = None
    min_version: str | None = None
    version_file: str | None = None
    version_pattern: str | None = None
    exclude: tuple[str, ...] = attrs.field(default=(), converter=_strs)


@attrs.frozen
class PackagePin:
    """A Python distribution an engine runs (its output inherits the package's license).

    ``min_version`` is the supported floor; ``pairs_with`` a release known to match the pinned
    kernels, offered as the way out of a mismatch.
    """

    name: str
    distribution: str
    license: str
    runs_on: str
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
class PinSet:
    """Pins from one file, or the merged catalog of all of them; every name resolves.

    ``declared_by`` maps each repository, package and engine name to the distribution whose
    file declared it (``hpx-core`` for the core's own).
    """

    repositories: Mapping[str, RepoPin]
    packages: Mapping[str, PackagePin]
    engines: Mapping[str, EngineSources]
    boards: Mapping[str, BoardFamily]
    declared_by: Mapping[str, str] = attrs.field(factory=dict)

    def engine(self, name: str) -> EngineSources:
        try:
            return self.engines[name]
        except KeyError:
            known = ", ".join(sorted(self.engines)) or "none"
            raise HpxError(
                f"no pinned sources for engine {name!r}",
                f"engines with pins: {known}; an engine declares its pins on its descriptor",
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
        names = list(spec.repositories)
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
                f"no board family {family!r} with pinned sources", f"known families: {known}"
            ) from None
        return tuple(self.repositories[n] for n in board.repositories)

    def users_of(self, name: str) -> tuple[str, ...]:
        """Who needs repository ``name``: engines (``engine/backend``) and board families."""
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

    def package(self, name: str) -> PackagePin:
        try:
            return self.packages[name]
        except KeyError:
            raise HpxError(
                f"no pinned package {name!r}", f"known: {', '.join(sorted(self.packages))}"
            ) from None


class PinsError(HpxError):
    """A pin file is malformed, or two declarations disagree."""


def _req(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value:
        raise PinsError(f"{where}: `{key}` must be a non-empty string")
    return value


def _opt(table: Mapping[str, Any], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise PinsError(f"{where}: `{key}` must be a string")
    return value


def _strings(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PinsError(f"{where}: `{key}` must be a list of strings")
    return tuple(value)


def _table(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise PinsError(f"{where}: must be a table")
    return value


def _excludes(table: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """Sparse-checkout patterns to leave out, anchored at the repository root."""
    patterns = _strings(table, "exclude", where)
    for pattern in patterns:
        if not pattern.startswith("/") or pattern == "/":
            raise PinsError(
                f"{where}: exclude pattern {pattern!r} must start with `/` and name a path"
            )
    return patterns


def _commit(table: Mapping[str, Any], where: str) -> str:
    value = _req(table, "commit", where)
    if not _COMMIT.fullmatch(value):
        raise PinsError(
            f"{where}: commit {value!r} is not a full 40-hex commit",
            "pin a commit (git rev-parse <tag>^{commit}); tags and branches move",
        )
    return value


def _url(table: Mapping[str, Any], where: str) -> str:
    url = _req(table, "url", where)
    if url.endswith(".git") or url.endswith("/"):
        raise PinsError(
            f"{where}: url {url!r} must not end in `.git` or `/`",
            "keep URLs bare so `insteadOf` prefix rewrites map them cleanly",
        )
    return url


def _runs_on(table: Mapping[str, Any], where: str) -> str:
    value = _req(table, "runs_on", where)
    if not _RUNS_ON.fullmatch(value):
        raise PinsError(f"{where}: runs_on {value!r} is not one of {RUNS_ON_FORMS}")
    return value


def _submodule(entry: Any, where: str) -> SubmodulePin:
    table = _table(entry, where)
    path = _req(table, "path", where)
    if path.startswith("/") or ".." in Path(path).parts:
        raise PinsError(f"{where}: path {path!r} must be relative, inside")
    required = table.get("required", True)
    if not isinstance(required, bool):
        raise PinsError(f"{where}: `required` must be true or false")
    return SubmodulePin(path=path, name=_req(table, "name", where), url=_url(table, where),
                        commit=_commit(table, where), license=_req(table, "license", where),
                        required=required, exclude=_excludes(table, where))


def _submodules(raw: Sequence[Any], where: str) -> tuple[SubmodulePin, ...]:
    subs = [_submodule(entry, f"{where}.submodules[{i}]") for i, entry in enumerate(raw)]
    paths = [s.path for s in subs]
    if len(paths) != len(set(paths)):
        raise PinsError(f"{where}: a submodule path is listed twice")
    for index, sub in enumerate(subs):
        for later in subs[index + 1 :]:
            if sub.path.startswith(later.path + "/"):
                raise PinsError(
                    f"{where}: submodule {sub.path!r} is listed before its parent {later.path!r}"
                )
    return tuple(subs)


def _repository(name: str, raw: Any, where: str) -> RepoPin:
    table = _table(raw, where)
    if not _NAME.fullmatch(name):
        raise PinsError(f"{where}: {name!r} is not a plain name")
    pattern = _opt(table, "version_pattern", where)
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise PinsError(f"{where}: version_pattern does not compile: {exc}") from exc
    return RepoPin(
        name=name, url=_url(table, where), commit=_commit(table, where),
        license=_req(table, "license", where), runs_on=_runs_on(table, where),
        markers=_strings(table, "markers", where),
        submodules=_submodules(table.get("submodules", []), where),
        version=_opt(table, "version", where), min_version=_opt(table, "min_version", where),
        version_file=_opt(table, "version_file", where), version_pattern=pattern,
        exclude=_excludes(table, where),
    )


def _package(name: str, raw: Any, where: str) -> PackagePin:
    table = _table(raw, where)
    return PackagePin(
        name=name, distribution=_req(table, "distribution", where),
        license=_req(table, "license", where), runs_on=_runs_on(table, where),
        min_version=_opt(table, "min_version", where), pairs_with=_opt(table, "pairs_with", where),
    )


def _engine(name: str, raw: Any, where: str) -> EngineSources:
    table = _table(raw, where)
    backends = {
        backend: _strings(_table(spec, f"{where}.backends.{backend}"), "repositories",
                          f"{where}.backends.{backend}")
        for backend, spec in _table(table.get("backends", {}), where).items()
    }
    return EngineSources(
        name=name, primary=_req(table, "primary", where),
        repositories=_strings(table, "repositories", where),
        packages=_strings(table, "packages", where), backends=backends,
    )


def _board(name: str, raw: Any, where: str) -> BoardFamily:
    table = _table(raw, where)
    return BoardFamily(name=name, cpu_vendor=_req(table, "cpu_vendor", where),
                       repositories=_strings(table, "repositories", where))


def _check_known(names: Iterable[str], known: Mapping[str, Any], where: str, kind: str) -> None:
    for name in names:
        if name not in known:
            raise PinsError(f"{where}: unknown {kind} {name!r}")


def _check_references(pins: PinSet, source: str) -> None:
    for engine in pins.engines.values():
        where = f"{source} engines.{engine.name}"
        names = [engine.primary, *engine.repositories,
                 *(n for b in engine.backends.values() for n in b)]
        _check_known(names, pins.repositories, where, "repository")
        _check_known(engine.packages, pins.packages, where, "package")
    for board in pins.boards.values():
        _check_known(board.repositories, pins.repositories, f"{source} boards.{board.name}",
                     "repository")


def parse_pins(data: Mapping[str, Any], *, source: str = "pins",
               declared_by: str = CORE, shared: PinSet | None = None) -> PinSet:
    """Validate one pin file's data; any defect is a :class:`PinsError` naming ``source``.

    Names the file does not declare itself are looked up in ``shared`` (the core's pins), so
    an engine may use CMSIS-NN without declaring it again.
    """
    if data.get("schema") != 1:
        raise PinsError(f"{source}: unsupported schema {data.get('schema')!r}; expected 1")
    unknown = sorted(set(data) - {"schema", "repositories", "packages", "engines", "boards"})
    if unknown:
        raise PinsError(f"{source}: unknown top-level key {unknown[0]!r}",
                        "a pin file has schema, repositories, packages, engines and boards")
    sections = {key: _table(data.get(key, {}), f"{source} {key}")
                for key in ("repositories", "packages", "engines", "boards")}
    repos = {n: _repository(n, t, f"{source} repositories.{n}")
             for n, t in sections["repositories"].items()}
    pkgs = {n: _package(n, t, f"{source} packages.{n}") for n, t in sections["packages"].items()}
    own = PinSet(
        repositories=repos, packages=pkgs,
        engines={n: _engine(n, t, f"{source} engines.{n}") for n, t in sections["engines"].items()},
        boards={n: _board(n, t, f"{source} boards.{n}") for n, t in sections["boards"].items()},
        declared_by=dict.fromkeys([*repos, *pkgs, *sections["engines"]], declared_by),
    )
    _check_references(merge_pins(shared, own) if shared is not None else own, source)
    return own


def merge_pins(*sets: PinSet) -> PinSet:
    """One catalog of several pin sets; a name declared twice must be declared identically."""
    repos: dict[str, RepoPin] = {}
    pkgs: dict[str, PackagePin] = {}
    engines: dict[str, EngineSources] = {}
    boards: dict[str, BoardFamily] = {}
    owners: dict[str, str] = {}
    for pins in sets:
        for kind, into, items in (("repository", repos, pins.repositories),
                                  ("package", pkgs, pins.packages),
                                  ("engine", engines, pins.engines)):
            for name, value in items.items():
                _add(kind, name, value, into, owners, pins.declared_by.get(name, CORE))
        boards.update(pins.boards)
    return PinSet(repos, pkgs, engines, boards, owners)


def _add(kind: str, name: str, value: Any, into: dict[str, Any], owners: dict[str, str],
         owner: str) -> None:
    if name in into and into[name] != value:
        raise PinsError(
            f"{owner} declares {kind} {name!r} differently from {owners[name]}",
            "a pinned name means one commit everywhere: rename one of them",
        )
    into.setdefault(name, value)
    owners.setdefault(name, owner)


def read_pin_text(text: str, source: str, *, declared_by: str = CORE,
                  shared: PinSet | None = None) -> PinSet:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PinsError(f"{source} is not valid TOML: {exc}") from exc
    return parse_pins(data, source=source, declared_by=declared_by, shared=shared)


@cache
def core_pins() -> PinSet:
    """The pins the core ships: what every engine shares (read once)."""
    text = resources.files("hpx_core").joinpath("data/baseline.toml").read_text(encoding="utf-8")
    return read_pin_text(text, "hpx_core/data/baseline.toml")


def load_pins(package: str, resource: str = "pins.toml") -> PinSet:
    """An engine plugin's pins, shipped as package data (``<package>/pins.toml``).

    The plugin passes the result as ``EngineDescriptor.pins``; it may name the core's shared
    repositories (``CMSIS_6``, ``CMSIS-NN``, ...) without declaring them.
    """
    text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
    return read_pin_text(text, f"{package}/{resource}", declared_by=package, shared=core_pins())

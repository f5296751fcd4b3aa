"""The records of materialized sources: which repositories, at which commits, how trusted.

They cross the plugin contract (``hpx_materialize_sources`` answers a :class:`SourceSet`; the
contract re-exports them) but are made here, where sources are materialized.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import attrs

Provenance = Literal["qualified", "qualified-with-engine-override", "development-overrides"]
"""How far a run's sources may be trusted: at the pins, with the engine replaced, or changed."""


def _repos(values: Iterable[SourceRepo]) -> tuple[SourceRepo, ...]:
    return tuple(values)


@attrs.frozen
class SourceRepo:
    """One repository an engine is built from, at the exact commit used."""

    name: str
    url: str
    commit: str
    path: Path
    license: str


@attrs.frozen
class SourceSet:
    """Answer of ``hpx_materialize_sources``: where the sources are, and how trusted."""

    repos: tuple[SourceRepo, ...] = attrs.field(converter=_repos)
    provenance: Provenance = "qualified"

    def path_of(self, name: str) -> Path:
        return self.repo(name).path

    def repo(self, name: str) -> SourceRepo:
        for repo in self.repos:
            if repo.name == name:
                return repo
        raise KeyError(name)

"""What an installed pass adds to the bundles it writes: its files' schemas and its views.

A pass object (:mod:`hpx_core.pass_plugins`) that writes JSON files into bundles declares
their schemas here, so ``hpx results verify`` checks them as it checks the core's; its views
put the files in front of the user where the core's sections go: a section of the bundle's
HTML page, slices of the Perfetto trace, tables of ``hpx compare``. Each view takes the
pass's documents as the bundle holds them (file name -> parsed JSON) and answers nothing when
the bundle has none. A bundle whose pass is not installed still verifies (its files by their
digests) and shows the core's views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from hpx_core.pass_plugins import pass_plugins
from hpx_core.plugins import default_registry

Documents = Mapping[str, Any]
"""A bundle's documents of one pass: file name -> its parsed JSON."""


@runtime_checkable
class BundleExtension(Protocol):
    """A pass's files and views (see the module's docstring)."""

    @property
    def schemas(self) -> Mapping[str, Mapping[str, Any]]:
        """Each JSON file the pass writes into a bundle -> its JSON schema."""
        ...

    def html(self, documents: Documents) -> str | None:
        """The pass's section of the bundle's HTML page (escaped by the pass), or None."""
        ...

    def trace_events(self, documents: Documents, events: Sequence[Mapping[str, Any]]
                     ) -> list[dict[str, Any]]:
        """Perfetto events to add to the run's trace (``events``: the trace so far)."""
        ...

    def compare(self, base: Documents, candidate: Documents, top: int) -> tuple[Any, ...]:
        """Rich renderables ``hpx compare`` prints after its own tables (never gated)."""
        ...


def bundle_extensions() -> tuple[BundleExtension, ...]:
    """The installed passes that declare bundle files."""
    found = pass_plugins(default_registry().passes)
    return tuple(p for p in found if isinstance(p, BundleExtension))


def extension_schemas() -> dict[str, Mapping[str, Any]]:
    """Every installed pass's bundle files -> their schemas."""
    return {name: schema for found in bundle_extensions() for name, schema in found.schemas.items()}


def documents_of(found: BundleExtension, documents: Documents) -> dict[str, Any]:
    """The documents of ``documents`` that are ``found``'s own files."""
    return {name: documents[name] for name in found.schemas if name in documents}

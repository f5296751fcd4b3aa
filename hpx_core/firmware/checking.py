"""Checking that engine libraries are in the cache without building any.

``hpx prepare --offline`` runs the same steps as a preparation, but a library (or a library's
unit) that would have to be built is an error naming it instead of a build: what the check
passes, a run finds without compiling any library.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from hpx_core.errors import BuildError

_checking: ContextVar[bool] = ContextVar("hpx_library_checking", default=False)


@contextmanager
def only_checking() -> Iterator[None]:
    """Within this block (in this thread), a library that would be built is refused."""
    token = _checking.set(True)
    try:
        yield
    finally:
        _checking.reset(token)


def may_build(what: str) -> None:
    """Go on to build ``what``, unless this thread is only checking."""
    if _checking.get():
        raise BuildError(f"not in the cache: {what} (it would be built now)",
                         "run `hpx prepare` without --offline to build it")

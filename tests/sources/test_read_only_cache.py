"""Sources in a cache hpx cannot write: a checkout at its pin is read, with no lock taken.

A real cache is filled from the real repositories of :mod:`gitrepos`; a child process then
materializes with the cache mounted read-only (:mod:`read_only`), as a CI image's shared cache
is. A checkout found at its pin is used (remembered or checked by git), one that would have to
be fetched is refused in one error saying so.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import attrs
import pytest
from gitrepos import Upstream
from read_only import needs_unshare, run_read_only

from hpx_core.sources.cache import SourceCache
from hpx_core.sources.materialize import materialize_pin

pytestmark = needs_unshare
CHILD = """
import json, sys
from hpx_core.errors import HpxError
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.materialize import materialize_pin
from hpx_core.sources.pins import RepoPin, SubmodulePin

fields = json.loads(sys.argv[2])
fields["submodules"] = [SubmodulePin(**s) for s in fields["submodules"]]
try:
    done = materialize_pin(RepoPin(**fields), SourceCache(sys.argv[1]))
    print(json.dumps({"commits": [r.commit for r in done.repos]}))
except HpxError as error:
    print(json.dumps({"message": error.message, "hint": error.hint}))
"""


def _listing(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.lstat().st_mtime_ns for p in folder.rglob("*")}


def _read_only(cache: Path, pin: object) -> dict[str, object]:
    fields = json.dumps(attrs.asdict(pin))  # type: ignore[arg-type]
    done = run_read_only(cache, [sys.executable, "-c", CHILD, str(cache), fields])
    assert done.returncode == 0, done.stderr
    said: dict[str, object] = json.loads(done.stdout.splitlines()[-1])  # after its log
    return said


@pytest.mark.parametrize("remembered", [True, False])
def test_a_checkout_at_its_pin_is_read_and_nothing_is_written(
        upstream: Upstream, tmp_path: Path, remembered: bool) -> None:
    cache = tmp_path / "cache"
    pin = upstream.pin()
    materialize_pin(pin, SourceCache(cache))
    if not remembered:  # a cache copied elsewhere: the note no longer matches, git decides
        for note in (cache / "locks").glob("*.verified.json"):
            note.unlink()
    before = _listing(cache)
    said = _read_only(cache, pin)
    assert said == {"commits": [pin.commit, upstream.lib_commit, upstream.leaf_commit]}
    assert _listing(cache) == before


def test_a_checkout_that_would_have_to_be_fetched_is_one_error(
        upstream: Upstream, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    materialize_pin(upstream.pin(upstream.c1, submodules=False), SourceCache(cache))
    before = _listing(cache)
    said = _read_only(cache, upstream.pin(upstream.c3, submodules=False))
    assert str(said["message"]).startswith(
        f"app must be fetched into the cache {cache}, which hpx cannot write: it is wrong "
        "commit there")
    assert "HPX_CACHE_DIR" in str(said["hint"])
    assert _listing(cache) == before

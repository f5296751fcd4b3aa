"""docs/writing-a-pass.md names every member of every face a pass may have, and the entry-point
groups the core reads, as the code has them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hpx_core.cli.extensions import COMMAND_GROUP
from hpx_core.config.pass_keys import ClockedOptions, ConfiguredPass, PassFlag
from hpx_core.pipeline.uncounted import UncountedPass
from hpx_core.plugins import PASS_GROUP
from hpx_core.results.extensions import BundleExtension

GUIDE = (Path(__file__).resolve().parents[1] / "docs" / "writing-a-pass.md").read_text(
    encoding="utf-8")


def _members(protocol: Any) -> set[str]:
    return {name for name in vars(protocol) if not name.startswith("_")}


@pytest.mark.parametrize("protocol", [UncountedPass, ConfiguredPass, BundleExtension,
                                      ClockedOptions])
def test_every_member_of_each_face_is_in_the_guide(protocol: Any) -> None:
    members = _members(protocol)
    assert members, protocol
    assert f"`{protocol.__name__}`" in GUIDE or protocol is ClockedOptions
    assert sorted(m for m in members if f"`{m}" not in GUIDE) == []


def test_the_flag_record_and_the_groups_are_as_written() -> None:
    assert "PassFlag(flag, key, help, kind)" in GUIDE
    assert [a.name for a in PassFlag.__attrs_attrs__] == ["flag", "key", "help", "kind"]
    assert f'"{PASS_GROUP}"' in GUIDE and f'"{COMMAND_GROUP}"' in GUIDE

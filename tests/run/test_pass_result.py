"""What a pass hands back: its console rows fill every column, a layer it has no cells for
included."""

from __future__ import annotations

from hpx_core.run.pass_result import ConsoleSummary


def test_a_layer_without_cells_shows_the_blank_in_each_column() -> None:
    shown = ConsoleSummary(("stack", "arena"), {0: ("96", "1,024")})
    assert shown.row(0) == ("96", "1,024")
    assert shown.row(7) == ("-", "-")
    assert ConsoleSummary(("vs host",), {}, blank="not checked").row(3) == ("not checked",)

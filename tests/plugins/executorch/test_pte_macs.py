"""The MAC rules of ExecuTorch kernel calls, each checked against a small hand calculation."""

from __future__ import annotations

from hpx_executorch.pte_macs import pte_macs


def test_pte_rules() -> None:
    assert pte_macs("aten::leaky_relu", [(1, 16, 32, 32)], [(1, 16, 32, 32)]) == 16_384
    assert pte_macs("aten::view_copy", [(1, 16)], [(16,)]) == 0
    assert pte_macs("cortex_m::some_new_op", [(1,)], [(1,)]) is None

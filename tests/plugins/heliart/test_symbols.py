"""The backend checks: which names count as ns-cmsis-nn's own, and what each backend demands."""

from __future__ import annotations

import re

import pytest
from hpx_heliart.symbols import INTERPRETER, NS_ONLY, verify_symbols

from hpx_core.sources import PinSet, materialize_pin

CMSIS_NN_KERNEL = "arm_convolve_wrapper_s8"  # in both kernel libraries


def _declared(include_dir_text: str) -> set[str]:
    return set(re.findall(r"\b(arm_\w+)\s*\(", include_dir_text))


@pytest.mark.e2e
def test_the_ns_only_entry_points_are_ns_cmsis_nn_s_alone_at_the_pins(catalog: PinSet) -> None:
    roots = {name: materialize_pin(catalog.pin(name)).repos[0].path
             for name in ("ns-cmsis-nn", "CMSIS-NN")}
    texts = {name: "".join(p.read_text(encoding="utf-8", errors="replace")
                           for p in sorted((root / "Include").rglob("*.h")))
             for name, root in roots.items()}
    ns, arm = _declared(texts["ns-cmsis-nn"]), _declared(texts["CMSIS-NN"])
    assert set(NS_ONLY) <= ns
    assert not set(NS_ONLY) & arm
    assert CMSIS_NN_KERNEL in ns & arm


def _failed(backend: str, names: set[str]) -> list[str]:
    return [f.check for f in verify_symbols(backend, names) if not f.passed]


def test_helia_needs_an_ns_only_entry_point() -> None:
    assert _failed("helia", {INTERPRETER, CMSIS_NN_KERNEL, NS_ONLY[0]}) == []
    assert _failed("helia", {INTERPRETER, CMSIS_NN_KERNEL}) == ["ns-cmsis-nn kernels linked"]


def test_cmsis_nn_must_not_carry_ns_entry_points() -> None:
    assert _failed("cmsis_nn", {INTERPRETER, CMSIS_NN_KERNEL}) == []
    assert _failed("cmsis_nn", {INTERPRETER, CMSIS_NN_KERNEL, NS_ONLY[0]}) == [
        "Arm CMSIS-NN kernels linked"]
    assert _failed("cmsis_nn", {INTERPRETER}) == ["Arm CMSIS-NN kernels linked"]


def test_reference_carries_no_kernel_library_and_everyone_needs_the_interpreter() -> None:
    assert _failed("reference", {INTERPRETER}) == []
    assert _failed("reference", {INTERPRETER, CMSIS_NN_KERNEL}) == ["reference kernels only"]
    assert _failed("reference", set()) == ["heliaRT interpreter linked"]

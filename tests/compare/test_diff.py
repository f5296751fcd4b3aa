"""Comparisons of real emulated bundles: deltas, impact order, divergence, model identity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selftest_bundles import EXTRA_INSTRUCTIONS, bundle, first_divergent_layer

from hpx_core.compare import MatchManifest, Region, compare, load_view
from hpx_core.errors import ConfigError, ResultsError, RunError
from hpx_core.run import run_and_record
from hpx_core.runners import runner_for

pytestmark = pytest.mark.emulated


def _measurement(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((path / "summary.json").read_text())["measurement"]  # type: ignore[no-any-return]


def test_deltas_are_the_difference_of_the_bundles() -> None:
    base, cand = bundle(), bundle(variant="slower")
    c = compare(load_view(base), load_view(cand))
    mb, mc = _measurement(base), _measurement(cand)
    whole = c.total("whole inference")
    assert whole.delta == mc["whole_inference"]["median"] - mb["whole_inference"]["median"]
    assert c.total("layer sum").delta == mc["layer_sum"] - mb["layer_sum"]
    by_index = {d.base.index: d for d in c.layers}
    for lb, lc in zip(mb["layers"], mc["layers"], strict=True):
        d = by_index[lb["index"]]
        assert d.delta == lc["median"] - lb["median"]
        assert d.pct == pytest.approx(100 * (lc["median"] - lb["median"]) / lb["median"])
    # Known from the code: the slower variant runs 50,000 more 3-instruction float iterations.
    assert whole.delta == EXTRA_INSTRUCTIONS
    top = c.layers[0]
    assert (top.base.name, top.delta) == ("float", EXTRA_INSTRUCTIONS)
    assert all(abs(a.delta) >= abs(b.delta) for a, b in zip(c.layers, c.layers[1:], strict=False))
    assert c.divergence is None and not c.differing


def test_divergent_sequences_name_the_first_differing_layer() -> None:
    m55, m4 = load_view(bundle("qemu-m55")), load_view(bundle("qemu-m4"))
    c = compare(m55, m4)
    assert c.divergence is not None and c.divergence.index == first_divergent_layer()
    message = c.divergence.message
    assert f"diverge at layer {first_divergent_layer()}" in message
    assert "'vector' (mve)" in message and "'long' (subs_bne)" in message
    assert c.layers == ()
    assert [d.name for d in c.differing] == ["board"]
    assert c.total("whole inference").delta == m4.whole_median - m55.whole_median  # type: ignore[operator]


def test_different_models_are_refused_without_a_manifest() -> None:
    base = load_view(bundle(model=True))
    cand = load_view(bundle(variant="slower", model=True))
    assert base.model_sha256 != cand.model_sha256
    with pytest.raises(ResultsError, match="different models") as caught:
        compare(base, cand)
    assert "--manifest" in caught.value.hint
    assert base.model_sha256 and cand.model_sha256
    manifest = MatchManifest(base.model_sha256, cand.model_sha256)
    assert compare(base, cand, manifest).total("whole inference").delta == EXTRA_INSTRUCTIONS
    with pytest.raises(ConfigError, match="match manifest is for models"):
        compare(base, cand, MatchManifest(cand.model_sha256, base.model_sha256))


def test_manifest_pairs_layers_across_divergent_sequences() -> None:
    m55 = load_view(bundle("qemu-m55", model=True))
    m4 = load_view(bundle("qemu-m4", model=True))
    assert m55.model_sha256 and m4.model_sha256
    pairs = ((0, 0), (4, 4), (5, 5), (7, 6))  # tiny, float, stack, long
    c = compare(m55, m4, MatchManifest(m55.model_sha256, m4.model_sha256, pairs))
    assert sorted((d.base.name, d.candidate.name) for d in c.layers) == [
        ("float", "float"),
        ("long", "long"),
        ("stack", "stack"),
        ("tiny", "tiny"),
    ]
    assert c.divergence is None and any("match manifest" in n for n in c.notes)


def test_regions_sum_unpaired_layers_and_rows_follow_both_programs() -> None:
    m55 = load_view(bundle("qemu-m55", model=True))
    m4 = load_view(bundle("qemu-m4", model=True))
    assert m55.model_sha256 and m4.model_sha256
    pairs = ((0, 0), (4, 4), (5, 5), (7, 6))
    region = Region("between", (1, 2, 3, 6), (1, 2, 3))
    c = compare(m55, m4, MatchManifest(m55.model_sha256, m4.model_sha256, pairs, (region,)))
    total = c.total("between region")
    assert total.base == sum(m55.layers[i].median for i in region.base)
    assert total.candidate == sum(m4.layers[i].median for i in region.candidate)
    assert total.delta == total.candidate - total.base
    sides = [(r.base.index if r.base else None, r.candidate.index if r.candidate else None)
             for r in c.aligned]
    assert sides == [(0, 0), (1, None), (2, None), (3, None), (None, 1), (None, 2), (None, 3),
                     (4, 4), (5, 5), (6, None), (7, 6)]
    assert [r.region for r in c.aligned if r.base is None or r.candidate is None] == [
        "between"] * 7
    assert all(r.delta is None for r in c.aligned if r.region)
    with pytest.raises(ConfigError, match="names layers the bundle does not have"):
        compare(m55, m4, MatchManifest(m55.model_sha256, m4.model_sha256, pairs,
                                       (Region("bad", (9,), ()),)))


def test_failed_run_is_refused(tmp_path: Path) -> None:
    from emulated_firmware import fixture_build

    project, built = fixture_build("fault_engine")
    with pytest.raises(RunError):
        run_and_record(runner_for(project.board, timeout=60), built.elf, tmp_path,
                       engine="fault_engine")
    (failed,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    view = load_view(failed)
    assert view.status == "failed"
    with pytest.raises(ResultsError, match=r"candidate bundle .* is a failed run"):
        compare(load_view(bundle()), view)

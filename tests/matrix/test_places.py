"""``hpx matrix --place any`` spreads a matrix's runs over a board farm's places.

The lab is the two-place farm of :mod:`qemu_farm` (``qemu-a``, ``qemu-b``, both for qemu-m55).
A 4-cell matrix of the loops test engine (two MLPerf Tiny models, two backends) runs as a real
``hpx matrix`` process over both places, then the same file runs here; every cell's bundle
from the places verifies and counts what its local twin counts. Loops are bounded; the lab
checks with ``ps`` that nothing it started is left.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from loops_engine import loops_environment
from matrix_folders import AD01, KWS
from qemu_farm import EXPORTERS, Farm, qemu_farm, run_json

from hpx_core.matrix import load_matrix
from hpx_core.results import verify_bundle

pytestmark = pytest.mark.emulated
PLACES = sorted(EXPORTERS.values())


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Farm]:
    with qemu_farm(tmp_path_factory.mktemp("matrix-farm")) as lab:
        yield lab


def four_cells(farm: Farm) -> Path:
    spec = farm.root / "four.yaml"
    spec.write_text(f"""hpx_matrix: 1
name: four
models:
  - {{path: {KWS}, label: kws}}
  - {{path: {AD01}, label: ad01}}
engines:
  - {{type: loops, backends: [plain, nops]}}
boards: [qemu-m55]
profile:
  profiling: {{iterations: 3, warmup: 1}}
  farm: {{ssh_key: {farm.ssh.client_key}, wait: 60}}
""", encoding="utf-8")
    return spec


def hpx_matrix(farm: Farm, spec: Path, folder: str, *more: str) -> str:
    env = loops_environment(farm.root / "loops") | {"HPX_CACHE_DIR": str(farm.root / "cache")}
    done = farm.hpx("matrix", str(spec), "--output-dir", str(farm.root / folder), *more,
                    **{k: env[k] for k in ("PYTHONPATH", "HPX_CACHE_DIR")})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_matrix_spreads_over_every_place_and_counts_what_local_runs_count(
        farm: Farm) -> None:
    spec = four_cells(farm)
    planned = farm.hpx("matrix", str(spec), "--dry-run", "--place", "lab=loopback",
                       PYTHONPATH=loops_environment(farm.root / "loops")["PYTHONPATH"])
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "runs on qemu-m55 spread over places qemu-a, qemu-b" in planned.stdout

    said = hpx_matrix(farm, spec, "on-places", "--place", "any")
    here = hpx_matrix(farm, spec, "here")
    remote, local = load_matrix(farm.root / "on-places"), load_matrix(farm.root / "here")
    assert len(remote.cells) == 4 and {c.status for c in remote.cells} == {"complete"}

    ran: dict[str, str] = {}
    for cell in remote.cells:
        assert cell.place in PLACES, cell.id
        ran[cell.id] = cell.place
        assert f"{cell.id} on place {cell.place}" in said
        bundle = remote.folder / str(cell.bundle)
        assert verify_bundle(bundle).status == "complete"
        place = run_json(bundle)["place"]
        assert isinstance(place, dict) and place["name"] == cell.place
        assert place["exporter"] == next(e for e, g in EXPORTERS.items() if g == cell.place)
        written = json.loads((remote.folder / "cells" / cell.id / "cell.json").read_text())
        assert written["place"] == cell.place
    assert sorted(set(ran.values())) == PLACES  # each place ran cells
    print("cells by place:", json.dumps(ran, indent=1))

    twins = {c.id: c for c in local.cells}
    assert set(twins) == set(ran)
    for cell in remote.cells:
        twin = twins[cell.id]
        assert twin.place is None and twin.status == "complete"
        assert cell.numbers is not None and twin.numbers is not None
        assert cell.numbers.whole == twin.numbers.whole and cell.numbers.whole, cell.id
        assert cell.numbers.layer_sum == twin.numbers.layer_sum, cell.id
        assert cell.numbers.layers == twin.numbers.layers, cell.id
        print(f"{cell.id}: {cell.numbers.whole:,} {cell.numbers.units} on {cell.place}, "
              f"{twin.numbers.whole:,} here")
    assert "on place" not in here

    with (remote.folder / "matrix.csv").open() as table:
        assert {row["cell"]: row["place"] for row in csv.DictReader(table)} == ran
    report = (remote.folder / "report.html").read_text()
    assert all(f"on place {place}" in report for place in PLACES)
    assert all(farm.holder(place) is None for place in PLACES)


def test_a_place_no_board_of_the_matrix_has_is_refused_before_anything_runs(
        farm: Farm) -> None:
    spec = four_cells(farm)
    refused = farm.hpx("matrix", str(spec), "--output-dir", str(farm.root / "nowhere"),
                       "--place", "lab=elsewhere",
                       PYTHONPATH=loops_environment(farm.root / "loops")["PYTHONPATH"])
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "error: no place 'lab=elsewhere' at " in refused.stderr
    assert "runs a board of matrix four (qemu-m55)" in refused.stderr
    assert not (farm.root / "nowhere").exists()

"""`hpx sources` and `hpx cache` against real local repositories (and the shipped baseline)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import attrs
import gitrepos
import pytest

from hpx_core.boards import all_boards
from hpx_core.cli import main
from hpx_core.plugins import load_registry
from hpx_core.sources.pins import PinSet, parse_pins

git_env = gitrepos.git_env
upstream = gitrepos.upstream
upstream_repos = gitrepos.upstream_repos
plugins_module = importlib.import_module("hpx_core.plugins")  # the commands import from it


def toy_pins(up: Any) -> PinSet:
    """Pins of one engine, `toy`, built from the test repositories."""
    pin = up.pin()
    return parse_pins(
        {
            "schema": 1,
            "repositories": {
                "app": {
                    "url": pin.url,
                    "commit": pin.commit,
                    "license": "Apache-2.0",
                    "runs_on": "any",
                    "markers": ["app.txt"],
                    "submodules": [
                        {"path": s.path, "name": s.name, "url": s.url, "commit": s.commit,
                         "license": s.license}
                        for s in pin.submodules
                    ],
                }
            },
            "engines": {"toy": {"primary": "app", "repositories": ["app"]}},
        }
    )  # fmt: skip


@pytest.fixture
def toy(upstream: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    registry = attrs.evolve(load_registry(), catalog=toy_pins(upstream))
    monkeypatch.setattr(plugins_module, "default_registry", lambda **_options: registry)
    return upstream


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def cache_dir() -> Path:
    import os

    return Path(os.environ["HPX_CACHE_DIR"])


def test_fetch_list_offline_and_clean(toy: Any, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sources", "list")
    assert code == 0
    assert "Apache-2.0" in out and "missing" in out and "toy" in out
    code, out, err = run(capsys, "sources", "fetch", "--engine", "toy")
    assert code == 0, err
    assert toy.c3 in out and toy.leaf_commit in out
    assert "provenance: qualified;" in out
    assert "app" in err  # the progress bar goes to stderr
    code, out, _ = run(capsys, "sources", "list")
    assert "at pin" in out
    code, out, _ = run(capsys, "sources", "list", "--json")
    rows = {row["name"]: row for row in json.loads(out)["repositories"]}
    assert rows["leaf"]["commit"] == toy.leaf_commit and rows["leaf"]["state"] == "at pin"
    assert rows["leaf"]["submodule"] and not rows["app"]["submodule"]
    (cache_dir() / "sources" / "app" / "scratch.txt").write_text("left behind\n")
    code, out, _ = run(capsys, "sources", "list")
    assert "dirty" in out and "scratch.txt" in out
    code, _, err = run(capsys, "sources", "fetch", "--engine", "toy", "--offline")
    assert code == 1
    assert "error: app in the cache is dirty" in err and "hint:" in err
    assert "Traceback" not in err
    code, _, _ = run(capsys, "sources", "fetch", "--engine", "toy")
    assert code == 0 and not (cache_dir() / "sources" / "app" / "scratch.txt").exists()
    code, out, _ = run(capsys, "cache", "info")
    assert code == 0 and "sources/app" in out and "total" in out
    code, out, _ = run(capsys, "cache", "clean", "app")
    assert code == 0 and "removed" in out
    assert not (cache_dir() / "sources" / "app").exists()


def test_fetch_with_source_path_is_stamped(
    toy: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run(capsys, "sources", "fetch", "--engine", "toy")
    mine = tmp_path / "mine"
    gitrepos.git(tmp_path, "clone", "-q", "--recurse-submodules", toy.url("app"), str(mine))
    gitrepos.git(mine, "checkout", "-q", "--detach", toy.c3)
    gitrepos.git(mine, "submodule", "update", "-q", "--init", "--recursive")
    code, out, err = run(capsys, "sources", "fetch", "--engine", "toy", "--source-path", str(mine))
    assert code == 0, err
    assert "provenance: qualified-with-engine-override" in out


def test_helia_rt_on_an_emulated_board_is_refused_before_fetching(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "sources", "fetch", "--engine", "helia-rt", "--board", "qemu-m55")
    assert code == 2
    assert "LicenseRef-Ambiq-Apollo-SDK" in err
    may_run_it = err.split("hint:")[1].split(";")[0]
    ambiq = [b.name for b in all_boards().values() if b.cpu_vendor == "Ambiq"]
    assert all(name in may_run_it for name in ambiq) if ambiq else "Ambiq" in may_run_it
    assert "qemu" not in may_run_it
    assert not cache_dir().exists()


def test_listing_shows_every_license_and_who_declared_each_pin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "sources", "list", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)["repositories"]}
    assert rows["tflite-micro"]["declared_by"] == "hpx-tflm"
    assert rows["helia-rt"]["declared_by"] == "hpx-heliart"
    assert rows["nsx-executorch"]["declared_by"] == "hpx-executorch"
    assert rows["CMSIS-NN"]["declared_by"] == rows["nsx-ambiq-sdk"]["declared_by"] == "hpx-core"
    assert "tflm/cmsis_nn" in rows["CMSIS-NN"]["used_by"]
    code, out, _ = run(capsys, "sources", "list")
    assert "LicenseRef-Ambiq-Apollo-SDK" in out and "BSD-3-Clause" in out
    assert "helia-aot" in out and "0.18.0" in out and "declared by hpx-heliaaot" in out


def test_fetch_needs_an_engine_or_a_board_family(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "sources", "fetch")
    assert code == 2 and "--engine or --board-family" in err

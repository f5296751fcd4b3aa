"""docs/board-farm.md's lab works as written: its exporter YAML and its place commands.

The exporter runs the YAML from the page (probes need no device to be exported); the places
are made by the page's ``labgrid-client`` lines; ``hpx places`` then lists what the page says.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from labgrid_lab import Lab, require_lab

from hpx_core.cli import main
from hpx_core.farm.client import close_clients

DOC = Path(__file__).resolve().parents[2] / "docs" / "board-farm.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    require_lab()
    made = Lab(tmp_path_factory.mktemp("docs-lab"))
    try:
        made.start()
        yield made
    finally:
        close_clients()
        made.stop()
    assert made.leftovers() == []


def test_the_pages_exporter_and_places_give_the_places_it_promises(
        lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    (exporter,) = [b for b in blocks("yaml") if "HpxProbe" in b]
    lab.start_exporter("lab-host-1", exporter)
    lab.wait_for_resources("lab-host-1", ["apollo510-evb-1", "apollo4p-evb-1", "qemu-host-1"])
    commands = [line.split("#")[0] for block in blocks("sh") for line in block.splitlines()
                if line.startswith("labgrid-client -p ")]
    assert len(commands) == 10
    for command in commands:
        lab.client(*shlex.split(command)[1:])
    assert main(["places", "--coordinator", lab.address, "--json"]) == 0
    rows = {row["place"]: row for row in json.loads(capsys.readouterr().out)}
    assert {name: row["board"] for name, row in rows.items()} == {
        "evb-510": "apollo510_evb", "evb-4p": "apollo4p_evb", "qemu-1": "qemu-m55"}
    assert all(row["usable"] and row["status"] == "free" for row in rows.values())
    probe = rows["evb-510"]["resources"][0]
    assert probe["cls"] == "HpxProbe" and probe["params"]["host"] == "127.0.0.1"
    assert probe["params"]["unique_id"] == "000260112345"
    assert probe["params"]["python"] == "/opt/pyocd/bin/python"
    assert probe["params"]["pack"] == "/opt/packs/AmbiqMicro.Apollo_DFP.1.4.1.pack"
    assert rows["evb-4p"]["resources"][0]["params"]["unique_id"].startswith("0240000034544e45")
    assert rows["evb-510"]["comment"] == "Apollo510 EVB, J-Link OB, rack 2"
    service = rows["qemu-1"]["resources"][0]
    assert service["cls"] == "NetworkService" and service["params"]["username"] == "hpx"

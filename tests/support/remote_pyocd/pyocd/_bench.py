"""The bench behind the remote fake pyocd, built once per process from the test's JSON.

``PYTHONPATH`` holds this folder and tests/support (for fake_pyocd). The JSON names the
probes, the RAM regions, the firmware model (a stream file and where its RTT control block and
ring sit) and a ``log`` file: when the process ends, what happened on this "exporter host"
(flashed files, resets, halts, sessions opened and closed) is written there for the test.
"""

from __future__ import annotations

import atexit
import json
import os
from pathlib import Path

from fake_pyocd import Bench, FakeProbe, FakeTarget, Firmware, State

SCENARIO = json.loads(Path(os.environ["HPX_FAKE_PYOCD_BENCH"]).read_text())

_fw = SCENARIO["firmware"]
FIRMWARE = Firmware(
    stream=Path(_fw["stream"]).read_bytes(), cb_address=_fw["cb_address"],
    buffer_address=_fw["buffer_address"], stop_after=_fw.get("stop_after"),
    stopped_state=State[_fw.get("stopped_state", "RUNNING")], pc=_fw.get("pc", 0x0041_0123),
)
BENCH = Bench(
    [FakeProbe(uid, description) for uid, description in SCENARIO["probes"]],
    FakeTarget([tuple(r) for r in SCENARIO["ram"]], FIRMWARE),
    known_targets=set(SCENARIO["known_targets"]),
)
# the firmware fell silent (``stop_after``): a file beside the log says so, for the test
BENCH.target.on_silent = lambda: Path(SCENARIO["log"]).with_suffix(".silent").touch()


@atexit.register
def _report() -> None:
    target = BENCH.target
    Path(SCENARIO["log"]).write_text(json.dumps({
        "pid": os.getpid(),
        "flashed": [[Path(path).name, fmt] for path, fmt in BENCH.flashed],
        "flashed_existed_only_during_flash": all(not Path(p).exists() for p, _ in BENCH.flashed),
        "resets": target.resets, "halts": target.halts,
        "sessions": [{"probe": s.probe.unique_id, "options": s.options, "opened": s.opened,
                      "closed": s.closed} for s in BENCH.sessions],
    }))

"""The console script tunes the collector for a short-lived process, and only there."""

from __future__ import annotations

import json
import subprocess
import sys

from hpx_core.console import GC_THRESHOLDS

SPY = """
import atexit, gc, json, sys
seen = []

class Spy:
    def find_spec(self, name, path=None, target=None):
        if name in ("hpx_core.cli", "attr") and name not in [n for n, _ in seen]:
            seen.append((name, gc.get_threshold()))
        return None

sys.meta_path.insert(0, Spy())
atexit.register(lambda: print(json.dumps({"imported_at": seen,
                                          "frozen": gc.get_freeze_count()})))
"""


def _run(code: str) -> tuple[str, dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", SPY + code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    *shown, facts = done.stdout.strip().splitlines()
    return "\n".join(shown), json.loads(facts)


def test_the_console_script_sets_the_thresholds_first_and_freezes_what_the_command_loaded(
) -> None:
    shown, facts = _run("sys.argv = ['hpx', 'boards']\n"
                        "from hpx_core.console import main\nmain()")
    assert "qemu-m55" in shown
    assert facts["imported_at"] == [["attr", list(GC_THRESHOLDS)],
                                        ["hpx_core.cli", list(GC_THRESHOLDS)]]
    assert isinstance(facts["frozen"], int) and facts["frozen"] > 10_000


def test_the_cli_called_in_a_process_that_goes_on_freezes_nothing() -> None:
    shown, facts = _run("from hpx_core.cli import main\nassert main(['boards']) == 0")
    assert "qemu-m55" in shown
    assert facts["frozen"] == 0
    assert ["hpx_core.cli", list(GC_THRESHOLDS)] not in facts["imported_at"]

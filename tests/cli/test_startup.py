"""``hpx --help`` loads only the command line: what the commands use is imported when they run."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("hpx_core.api", "hpx_core.pipeline", "hpx_core.plugins", "hpx_core.config",
         "hpx_core.sources", "hpx_core.report", "matplotlib", "numpy", "git", "lief",
         "ruamel.yaml", "structlog", "pluggy", "cattrs")


def test_the_cli_imports_none_of_the_pipeline() -> None:
    code = ("import json, sys; import hpx_core.cli; "
            "print(json.dumps(sorted(sys.modules)))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                           text=True, check=True).stdout))
    assert "hpx_core.cli.main_commands" in loaded and "typer" in loaded
    assert sorted(m for m in HEAVY if m in loaded) == []


def test_help_lists_the_commands_and_a_command_still_runs() -> None:
    shown = subprocess.run([sys.executable, "-c",
                            "from hpx_core.cli import main; raise SystemExit(main(['--help']))"],
                           capture_output=True, text=True, check=False)
    assert shown.returncode == 0, shown.stderr
    assert "profile" in shown.stdout and "doctor" in shown.stdout
    boards = subprocess.run([sys.executable, "-c",
                             "from hpx_core.cli import main; raise SystemExit(main(['boards']))"],
                            capture_output=True, text=True, check=False)
    assert boards.returncode == 0, boards.stderr
    assert "qemu-m55" in boards.stdout


ENGINE_MACHINERY = ("hpx_tflm.engine", "hpx_executorch.engine", "hpx_heliart.engine",
                    "hpx_heliaaot.engine", "hpx_kernelbench.engine", "hpx_core.tflm_family",
                    "hpx_core.enginelib", "hpx_core.compare", "numpy", "tflite", "git", "lief")


def test_loading_every_plugin_imports_no_engine_machinery() -> None:
    """Every command loads every plugin: what their modules import, every run pays for."""
    code = ("import json, sys; from hpx_core.plugins import default_registry; "
            "engines = sorted(default_registry().engines); "
            "print(json.dumps([engines, sorted(sys.modules)]))")
    engines, loaded = json.loads(subprocess.run([sys.executable, "-c", code],
                                                capture_output=True, text=True,
                                                check=True).stdout)
    assert {"tflm", "executorch", "helia-rt", "helia-aot"} <= set(engines)
    assert sorted(m for m in ENGINE_MACHINERY if m in loaded) == []

"""``hpx --help`` loads only the command line: what the commands use is imported when they run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
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
                    "hpx_heliaaot.engine", "hpx_kernelbench.engine", "hpx_tflm_family",
                    "hpx_core.sdk.enginelib", "hpx_core.compare", "numpy", "tflite", "git", "lief")


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


RUN_MODULES = ("hpx_core.pipeline", "hpx_tflm_family", "hpx_core.run.record",
               "hpx_core.results", "hpx_core.results.bundle_schema", "hpx_tflm.plugin")
READERS = ("numpy", "tflite", "flatbuffers", "jsonschema", "lief", "tflite_micro")
WARM_MODEL_WORK = """
import json, sys
from pathlib import Path
from hpx_core.plugins import default_registry
from hpx_core.reading import keep_model, load_model
from hpx_core.results.outputs import check_outputs
from hpx_tflm_family import InputSpec, host_outputs, input_bytes, reference_outputs
model = load_model(Path(sys.argv[1]))
keep_model(model, default_registry())
data = model.path.read_bytes()
inputs = input_bytes(InputSpec.parse("random", 7), model)
outputs = host_outputs(data, inputs, model)
assert check_outputs(dict(enumerate(outputs)), reference_outputs(outputs, model), None).exact
print(json.dumps(sorted(sys.modules)))
"""


def test_the_run_modules_import_no_model_reader() -> None:
    code = (f"import json, sys; import {', '.join(RUN_MODULES)}; "
            "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, check=True).stdout)
    assert sorted(m for m in READERS if m in loaded) == []
    assert "structlog" not in loaded  # loaded for the first log line written (hpx_core.log)
    assert "ruamel.yaml" not in loaded  # loaded to read a config file, when one is given


def test_model_work_done_before_loads_no_reader_again(tmp_path: Path) -> None:
    """A warm run's model analysis, random inputs and host outputs come from the cache: no
    NumPy, flatbuffers schemas or interpreter (the first run needs them all)."""
    env = {**os.environ, "HPX_CACHE_DIR": str(tmp_path)}
    runs = [json.loads(subprocess.run([sys.executable, "-c", WARM_MODEL_WORK, str(KWS)],
                                      capture_output=True, text=True, check=True,
                                      env=env).stdout) for _ in range(2)]
    first, second = ([m for m in READERS if m in loaded] for loaded in runs)
    assert sorted(first) == ["flatbuffers", "numpy", "tflite", "tflite_micro"]
    assert second == []

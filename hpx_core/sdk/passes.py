"""What an uncounted pass imports: the run it is asked about, what it may ask of the harness,
what it is handed once the timed run is judged, the typed result it answers, its own config
keys and flags, its bundle files' schemas and views, and the tools a pass that reruns the
firmware under QEMU needs.

A pass is found through the ``hpx.passes`` entry point (docs/architecture.md, "Uncounted
passes"); like an engine it imports from the SDK only, so the core may rearrange the pipeline
behind this face. An ``hpx.commands`` entry point adds a command of the pass's own.
"""

from __future__ import annotations

from hpx_core.atomic import write_atomic
from hpx_core.boards import get_board
from hpx_core.config.pass_keys import ConfiguredPass, PassFlag
from hpx_core.errors import UsageError
from hpx_core.firmware.elfinfo import Symbol, code_at
from hpx_core.firmware.layout import every_layout, plan_layout
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import NOTHING, HarnessRequest, UncountedPass
from hpx_core.results.bundle import dump_json
from hpx_core.results.bundle_schema import schema_problem, shape_problem
from hpx_core.results.extensions import BundleExtension, Documents
from hpx_core.results.measure import Measurement, measure
from hpx_core.results.trace import LAYERS_TID, PID
from hpx_core.run.pass_result import ConsoleSummary, PassResult
from hpx_core.run.qemu import NO_PEER, QEMU, check_load_segments, qemu_argv
from hpx_core.tool_version import version_line
from hpx_core.user_files import read_regular, strict_json
from hpx_core.wire import parse_capture

__all__ = [
    "LAYERS_TID",
    "NOTHING",
    "NO_PEER",
    "PID",
    "QEMU",
    "BundleExtension",
    "ConfiguredPass",
    "ConsoleSummary",
    "Documents",
    "HarnessRequest",
    "Measurement",
    "PassFlag",
    "PassInputs",
    "PassResult",
    "RunContext",
    "Symbol",
    "UncountedPass",
    "UsageError",
    "check_load_segments",
    "code_at",
    "dump_json",
    "every_layout",
    "get_board",
    "measure",
    "parse_capture",
    "plan_layout",
    "qemu_argv",
    "read_regular",
    "schema_problem",
    "shape_problem",
    "strict_json",
    "version_line",
    "write_atomic",
]

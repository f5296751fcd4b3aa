"""What an uncounted pass imports: the run it is asked about, what it may ask of the harness,
what it is handed once the timed run is judged, and the typed result it answers.

A pass is found through the ``hpx.passes`` entry point (docs/architecture.md, "Uncounted
passes"); like an engine it imports from the SDK only, so the core may rearrange the pipeline
behind this face.
"""

from __future__ import annotations

from hpx_core.errors import UsageError
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import NOTHING, HarnessRequest, UncountedPass
from hpx_core.run.pass_result import ConsoleSummary, PassResult

__all__ = ["NOTHING", "ConsoleSummary", "HarnessRequest", "PassInputs", "PassResult",
           "RunContext", "UncountedPass", "UsageError"]

"""What a ``helia-aot`` ELF must contain: the generated module, and ns-cmsis-nn kernels.

heliaAOT code has no interpreter: it calls ns-cmsis-nn's ``arm_*_s8``/``arm_*_s16`` kernels
directly from ``<prefix>_model_run``. An ELF without them, or with a TFLite Micro interpreter,
was not built as configured.
"""

from __future__ import annotations

import re

from hpx_core.sdk import SymbolFinding

_KERNEL = re.compile(r"^arm_\w+_(s8|s16|s4)$")
INTERPRETER = "_ZN6tflite16MicroInterpreter6InvokeEv"


def verify_symbols(prefix: str, names: set[str]) -> list[SymbolFinding]:
    """Findings for a linked ``helia-aot`` ELF whose module uses ``prefix``."""
    run = f"{prefix}_model_run"
    kernels = sorted(n for n in names if _KERNEL.match(n))
    return [
        SymbolFinding("heliaAOT module linked", run in names,
                      f"{run} present" if run in names else f"{run} missing: the generated "
                      "module was not linked (or was generated with another prefix)"),
        SymbolFinding("ns-cmsis-nn kernels linked", bool(kernels),
                      f"{len(kernels)} kernel functions, e.g. {', '.join(kernels[:3])}"
                      if kernels else "no arm_*_s8 kernel linked"),
        SymbolFinding("no interpreter", INTERPRETER not in names,
                      "no TFLite Micro interpreter in the image" if INTERPRETER not in names
                      else "MicroInterpreter linked into an ahead-of-time build"),
    ]

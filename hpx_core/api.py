"""The typed Python API: what every CLI command calls, for notebooks and CI scripts.

Each name is a function (or the record it returns) of the module that owns the work; errors are
:class:`~hpx_core.errors.HpxError` with a hint, results are frozen attrs objects.

>>> from hpx_core import api
>>> outcome = api.profile(Path("kws.tflite"), None, {"target.board": ("qemu-m55", "notebook")})
>>> outcome.measurement.whole_median
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from hpx_core.compare import Comparison, apply_policy, compare, load_policy, load_view
from hpx_core.config.validate import Overrides, ValidatedConfig, validate_config
from hpx_core.matrix import (
    MatrixPlan,
    MatrixResult,
    Progress,
    default_folder,
    load_spec,
    run_matrix,
)
from hpx_core.matrix import plan_matrix as _plan_matrix
from hpx_core.models import ModelInfo
from hpx_core.pipeline import STAGE_NAMES, ProfileOutcome, profile
from hpx_core.pipeline import check as check_config
from hpx_core.pipeline.doctor import DoctorReport, run_doctor
from hpx_core.plugins import PluginReport, Registry, list_plugins
from hpx_core.plugins import default_registry as registry
from hpx_core.reading import load_model as analyze
from hpx_core.results import BundleCheck, verify_bundle
from hpx_core.selftest.run import SelftestReport, run_selftest

__all__ = [
    "STAGE_NAMES",
    "BundleCheck",
    "Comparison",
    "DoctorReport",
    "MatrixPlan",
    "MatrixResult",
    "ModelInfo",
    "Overrides",
    "PluginReport",
    "ProfileOutcome",
    "SelftestReport",
    "ValidatedConfig",
    "analyze",
    "apply_policy",
    "check_config",
    "compare",
    "list_plugins",
    "load_policy",
    "load_view",
    "matrix",
    "plan_matrix",
    "profile",
    "registry",
    "run_doctor",
    "run_selftest",
    "validate_config",
    "verify_bundle",
]


def plan_matrix(spec: Path, output_dir: Path | None = None,
                reg: Registry | None = None, *, place: str | None = None) -> MatrixPlan:
    """The plan of a matrix file: its cells (checked and fingerprinted) and the pruned ones;
    ``place`` (``any``, NAME, ``KEY=VALUE,...``) replaces the file's board farm places."""
    reg = reg or registry()
    loaded = load_spec(spec, reg)
    return _plan_matrix(loaded, reg, output_dir or default_folder(loaded), place)


def matrix(
    spec: Path,
    output_dir: Path | None = None,
    *,
    resume: bool = False,
    fresh: bool = False,
    dry_run: bool = False,
    workers: int | None = None,
    reg: Registry | None = None,
    stop: threading.Event | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    place: str | None = None,
) -> MatrixResult:
    """Run a matrix file (``hpx matrix``); ``dry_run`` plans it and runs nothing.

    ``stop``, once set, starts no new cell and lets running stages finish; ``on_progress``
    hears every change (from the worker threads); ``place`` spreads the runs of boards with
    board farm places over them (default: the file's ``place``).
    """
    reg = reg or registry()
    plan = plan_matrix(spec, output_dir, reg, place=place)
    if dry_run:
        return MatrixResult(plan, ())
    return run_matrix(plan, reg, resume=resume, fresh=fresh, workers=workers, stop=stop,
                      on_progress=on_progress)

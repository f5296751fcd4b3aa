"""The typed Python API: what every CLI command calls, for notebooks and CI scripts.

Each name is a function (or the record it returns) of the module that owns the work; errors are
:class:`~hpx_core.errors.HpxError` with a hint, results are frozen attrs objects.

>>> from hpx_core import api
>>> outcome = api.profile(Path("kws.tflite"), None, {"target.board": ("qemu-m55", "notebook")})
>>> outcome.measurement.whole_median
"""

from __future__ import annotations

from hpx_core.compare import Comparison, apply_policy, compare, load_policy, load_view
from hpx_core.config.validate import Overrides, ValidatedConfig, validate_config
from hpx_core.models import ModelInfo
from hpx_core.models import load_model as analyze
from hpx_core.pipeline import STAGE_NAMES, ProfileOutcome, profile
from hpx_core.pipeline import check as check_config
from hpx_core.pipeline.doctor import DoctorReport, run_doctor
from hpx_core.plugins import PluginReport, list_plugins
from hpx_core.plugins import default_registry as registry
from hpx_core.results import BundleCheck, verify_bundle
from hpx_core.selftest.run import SelftestReport, run_selftest

__all__ = [
    "STAGE_NAMES",
    "BundleCheck",
    "Comparison",
    "DoctorReport",
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
    "profile",
    "registry",
    "run_doctor",
    "run_selftest",
    "validate_config",
    "verify_bundle",
]

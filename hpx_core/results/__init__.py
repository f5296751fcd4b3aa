"""Results: counts from a capture, and verifiable result bundles."""

from hpx_core.results.bundle import BundleInputs, write_bundle
from hpx_core.results.measure import LayerResult, Measurement, measure, merge_event_passes
from hpx_core.results.verify import BundleCheck, verify_bundle

__all__ = [
    "BundleCheck",
    "BundleInputs",
    "LayerResult",
    "Measurement",
    "measure",
    "merge_event_passes",
    "verify_bundle",
    "write_bundle",
]

"""Results: counts from a capture, and verifiable result bundles."""

from hpx_core.results.bundle import BundleCheck, BundleInputs, verify_bundle, write_bundle
from hpx_core.results.measure import LayerResult, Measurement, measure, merge_event_passes

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

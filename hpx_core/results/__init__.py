"""Results: counts from a capture, and verifiable result bundles."""

from hpx_core.results.bundle import BundleCheck, BundleInputs, verify_bundle, write_bundle
from hpx_core.results.measure import LayerResult, Measurement, measure

__all__ = [
    "BundleCheck",
    "BundleInputs",
    "LayerResult",
    "Measurement",
    "measure",
    "verify_bundle",
    "write_bundle",
]

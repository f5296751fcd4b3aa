"""Reading result bundles, for a pass's command that reads what runs wrote (``hpx calibrate``):
the verified, typed view every reader of a bundle goes through. Apart from
:mod:`hpx_core.sdk.passes` because a view loads NumPy and the bundle readers, which a run
that only writes a bundle never needs."""

from __future__ import annotations

from hpx_core.results.view import BundleView, load_view

__all__ = ["BundleView", "load_view"]

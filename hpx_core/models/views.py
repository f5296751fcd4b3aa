"""An engine's own reading of a model, made once per model and handed back on every hook.

The core gives each hook the :class:`~hpx_core.models.info.ModelInfo` it read; an engine whose
kernels need more (its own format's parse, a graph it builds from a ``.tflite``) reads that
through :func:`model_view`, which keeps the answer for the model's content. A 30 MB model is
then parsed once per process, not once per hook, and a changed file (another sha256) is read
anew. The views live in memory only, a few at a time: a matrix profiles many models in one
process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

from hpx_core.models.info import ModelInfo

T = TypeVar("T")
KEPT = 8  # views kept at once; the oldest goes first

_views: OrderedDict[tuple[str, str, str], object] = OrderedDict()
_lock = threading.Lock()


def model_view(model: ModelInfo, read: Callable[[ModelInfo], T], known: T | None = None) -> T:
    """``read(model)``, made once for this model's content and this reader.

    ``known`` hands in a view already made (``hpx_read_model`` parsed the file to answer):
    later calls get it without reading again. ``read`` must depend on the file's content alone.
    """
    key = (model.sha256, read.__module__, read.__qualname__)
    with _lock:
        if key in _views:
            _views.move_to_end(key)
            return cast(T, _views[key])
    view = read(model) if known is None else known
    with _lock:
        _views[key] = view
        while len(_views) > KEPT:
            _views.popitem(last=False)
    return view

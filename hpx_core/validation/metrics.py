"""Device against host, per output, over a whole data set, one sample at a time.

For each output tensor: the mean absolute error, RMSE, the L2 error relative to the host's
norm and the mean cosine similarity, on real values (a quantized output dequantized with the
model's own scale and zero point, as peers report them); for integer outputs the elements and
samples that differ and the largest difference in the output's own units; for a classifier
(one score per class) top-1 agreement with the host and, with labels, top-1 and top-k accuracy
on the device and on the host side by side. Sums are kept, not samples: memory stays the same
for ten samples or a million, but for one error figure per sample (the histogram, the worst).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hpx_core.models.info import TensorInfo

if TYPE_CHECKING:
    import numpy as np

WORST_KEPT = 5
HISTOGRAM_BINS = 20


@attrs.define
class OutputScore:
    """The running sums of one output tensor."""

    tensor: TensorInfo
    top_k: int
    samples: int = 0
    elements: int = 0
    abs_sum: float = 0.0
    sq_sum: float = 0.0
    ref_sq_sum: float = 0.0
    cosine_sum: float = 0.0
    differing_elements: int = 0
    differing_samples: int = 0
    max_abs_diff: float = 0.0
    agree: int = 0
    labelled: int = 0
    device_top1: int = 0
    host_top1: int = 0
    device_topk: int = 0
    host_topk: int = 0
    errors: list[float] = attrs.field(factory=list)
    worst: list[tuple[float, int]] = attrs.field(factory=list)  # (error, -sample), a heap

    @property
    def classes(self) -> int:
        """Scores per sample when the output is one row of class scores (else 0)."""
        shape = [d for d in self.tensor.shape if d != 1]
        return shape[0] if len(shape) == 1 and shape[0] > 1 else 0

    def add(self, sample: int, device: bytes, host: bytes, label: int | None) -> dict[str, Any]:
        """Count one sample; what it says of this sample (for the samples file)."""
        import numpy as np

        raw_d, raw_h = _array(device, self.tensor), _array(host, self.tensor)
        real_d, real_h = _real(raw_d, self.tensor), _real(raw_h, self.tensor)
        diff = real_d - real_h
        raw_diff = np.abs(raw_d.astype(np.float64) - raw_h.astype(np.float64))
        self.samples += 1
        self.elements += diff.size
        self.abs_sum += float(np.abs(diff).sum())
        self.sq_sum += float((diff * diff).sum())
        self.ref_sq_sum += float((real_h * real_h).sum())
        self.cosine_sum += _cosine(real_d, real_h)
        differing = int(np.count_nonzero(raw_diff))
        self.differing_elements += differing
        self.differing_samples += differing > 0
        largest = float(raw_diff.max()) if raw_diff.size else 0.0
        self.max_abs_diff = max(self.max_abs_diff, largest)
        self.errors.append(largest)
        _keep_worst(self.worst, largest, sample)
        said: dict[str, Any] = {"max_abs_diff": largest, "differing": differing}
        if self.classes:
            said.update(self._classify(raw_d, raw_h, label))
        return said

    def _classify(self, device: np.ndarray, host: np.ndarray, label: int | None) -> dict[str, Any]:
        import numpy as np

        # ranked as floats: an int8 score of -128 negated in its own type stays -128
        d_rank = np.argsort(-device.astype(np.float64), kind="stable")
        h_rank = np.argsort(-host.astype(np.float64), kind="stable")
        said = {"device_top1": int(d_rank[0]), "host_top1": int(h_rank[0])}
        self.agree += said["device_top1"] == said["host_top1"]
        if label is not None:
            k = min(self.top_k, self.classes)
            self.labelled += 1
            self.device_top1 += said["device_top1"] == label
            self.host_top1 += said["host_top1"] == label
            self.device_topk += label in d_rank[:k].tolist()
            self.host_topk += label in h_rank[:k].tolist()
        return said

    def document(self) -> dict[str, Any]:
        """The output's figures as ``validation.json`` holds them."""
        n = max(self.elements, 1)
        found: dict[str, Any] = {
            "tensor": self.tensor.name, "dtype": self.tensor.dtype,
            "values": "dequantized" if self.tensor.quantization else "as stored",
            "samples": self.samples,
            "mean_abs_error": self.abs_sum / n,
            "rmse": math.sqrt(self.sq_sum / n),
            "l2_relative": (math.sqrt(self.sq_sum) / math.sqrt(self.ref_sq_sum)
                            if self.ref_sq_sum > 0 else None),
            "cosine": self.cosine_sum / max(self.samples, 1),
            "differing_elements": self.differing_elements,
            "differing_share": self.differing_elements / n,
            "differing_samples": self.differing_samples,
            "max_abs_diff": self.max_abs_diff,
            "worst": [{"sample": -negative, "max_abs_diff": e} for e, negative in
                      sorted(self.worst, reverse=True)],
            "histogram": histogram(self.errors),
        }
        if self.classes:
            found["classes"] = self.classes
            found["top1_agreement"] = self.agree / max(self.samples, 1)
            if self.labelled:
                k = min(self.top_k, self.classes)
                found["accuracy"] = {
                    "labelled": self.labelled, "k": k,
                    "device_top1": self.device_top1 / self.labelled,
                    "host_top1": self.host_top1 / self.labelled,
                    "device_topk": self.device_topk / self.labelled,
                    "host_topk": self.host_topk / self.labelled,
                }
        return found


def scores(outputs: Sequence[TensorInfo], top_k: int) -> list[OutputScore]:
    return [OutputScore(t, top_k) for t in outputs]


def histogram(errors: Sequence[float]) -> dict[str, Any]:
    """Per-sample largest differences in :data:`HISTOGRAM_BINS` equal bins from 0."""
    top = max(errors, default=0.0)
    if top <= 0:
        return {"edges": [0.0, 0.0], "counts": [len(errors)]}
    width = top / HISTOGRAM_BINS
    counts = [0] * HISTOGRAM_BINS
    for error in errors:
        counts[min(int(error / width), HISTOGRAM_BINS - 1)] += 1
    return {"edges": [i * width for i in range(HISTOGRAM_BINS + 1)], "counts": counts}


def _keep_worst(worst: list[tuple[float, int]], error: float, sample: int) -> None:
    if error <= 0:
        return
    if len(worst) < WORST_KEPT:
        heapq.heappush(worst, (error, -sample))
    elif error > worst[0][0]:
        heapq.heapreplace(worst, (error, -sample))


def _array(data: bytes, tensor: TensorInfo) -> np.ndarray:
    import numpy as np

    return np.frombuffer(data, dtype=np.dtype(tensor.dtype)).reshape(-1)


def _real(values: np.ndarray, tensor: TensorInfo) -> np.ndarray:
    import numpy as np

    q = tensor.quantization
    if q is None or values.dtype.kind == "f":
        return values.astype(np.float64)
    return (values.astype(np.float64) - q.zero_points[0]) * q.scales[0]


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    import numpy as np

    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 and nb == 0:
        return 1.0
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))

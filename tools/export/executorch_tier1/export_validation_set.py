"""Export a validation data set for the Tier-1 ``tier1mean`` program (arm provider).

``hpx validate`` needs a host reference for every sample, and the PyPI runtime has no
``cortex_m::`` kernels to run the program on the host. So the exporter computes it: this tool
exports ``tier1mean_arm.pte`` again exactly as ``export_tier1.py`` does, checks the bytes are
the committed program's (the expected outputs belong to that program), draws 48 inputs as the
calibration data is drawn (uniform noise plus per-channel offsets) from another seed, rounded
to multiples of 1/128 as hpx's reference input is (exact in float16, so the file stays small),
and runs each through the lowered edge graph in PyTorch. It writes
``tier1mean_arm.validation.npz``: ``x`` (float16, 32 x 1 x 16 x 32 x 32, logical NCHW order;
hpx casts it to the program's float32 exactly) and ``expected`` (float32, 32 x 1 x 16 x 1 x 1),
the arrays ``hpx validate --data`` reads.

Run it in the Tier-1 export environment (README.md), with the pinned nsx-executorch:

    python tools/export/executorch_tier1/export_validation_set.py --nsx-executorch <checkout>
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export_tier1 import (
    DEFAULT_OUT,
    INPUT_DIVISOR,
    SEED,
    SPECS,
    _layout,
    install_dimname_shim,
)

SAMPLES = 32
DATA_SEED = SEED + 1
PROVIDER = "arm"
MODEL = "tier1mean"


def inputs(spec: object, count: int) -> list[torch.Tensor]:
    """``count`` inputs drawn as the calibration set is, from :data:`DATA_SEED`."""
    shape = spec.input_shape  # type: ignore[attr-defined]
    gen = torch.Generator().manual_seed(DATA_SEED)
    channels = shape[1]
    bias = (torch.arange(channels) * 128 // channels - 64).to(torch.float32) / INPUT_DIVISOR
    bias = bias.reshape((1, channels) + (1,) * (len(shape) - 2))
    drawn = (torch.rand(shape, generator=gen) - 0.5 + bias for _ in range(count))
    return [_layout(torch.round(x * INPUT_DIVISOR) / INPUT_DIVISOR,
                    spec.channels_last)  # type: ignore[attr-defined]
            for x in drawn]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nsx-executorch", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    install_dimname_shim()
    sys.path.insert(0, str(args.nsx_executorch / "aot"))
    from export_tier1 import _calibration
    from nsx_cortex_m.export import export

    (spec,) = [s for s in SPECS if s.name == MODEL]
    torch.manual_seed(SEED)
    model = spec.factory().eval()
    model.requires_grad_(False)
    calibration = _calibration(spec)
    captured = torch.export.export(model, calibration[0], strict=True).module(check_guards=False)
    result = export(captured, calibration[0], kernel_provider=PROVIDER,
                    calibration_samples=calibration)
    committed = args.out / f"{MODEL}_{PROVIDER}.pte"
    with tempfile.TemporaryDirectory() as folder:
        again = Path(folder) / committed.name
        result.write_pte(str(again), sidecar=False)
        made = hashlib.sha256(again.read_bytes()).hexdigest()
    if made != hashlib.sha256(committed.read_bytes()).hexdigest():
        print(f"the export differs from {committed}: re-export the programs first",
              file=sys.stderr)
        return 1
    samples = inputs(spec, SAMPLES)
    with torch.no_grad():
        expected = [result.edge_module(x).contiguous().to(torch.float32) for x in samples]
    path = args.out / f"{MODEL}_{PROVIDER}.validation.npz"
    np.savez_compressed(path, x=np.stack([x.contiguous().numpy() for x in samples]).astype(
        np.float16),
                        expected=np.stack([e.numpy() for e in expected]))
    print(f"wrote {path}: {SAMPLES} samples for {committed.name} (sha256 {made[:16]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

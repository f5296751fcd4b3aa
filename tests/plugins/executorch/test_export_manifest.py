"""The committed Tier-1 programs against the manifest the export tool wrote beside them.

The manifest comes from executorch's emitted Program object at export time; hpx's reader and
the sidecars are checked against it, so the reader, the sidecar and the layer ids agree.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from hpx_executorch.compat import exporter_version
from hpx_executorch.layers import layer_table
from hpx_executorch.program import program_of
from hpx_executorch.sidecar import sidecar_of

from hpx_core.reading import load_model

from .conftest import TIER1

MANIFEST = json.loads((TIER1 / "tier1_manifest.json").read_text(encoding="utf-8"))
PROGRAMS = [(m, p) for m, v in MANIFEST["models"].items() for p in v["programs"]]


@pytest.mark.parametrize(("model", "provider"), PROGRAMS)
def test_program_matches_manifest(model: str, provider: str) -> None:
    record = MANIFEST["models"][model]["programs"][provider]
    path = TIER1 / record["file"]
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == record["sha256"]
    info = load_model(path)
    program = program_of(info)
    assert program is not None
    plan = program.plans[0]
    assert [op.qualified_name for op in plan.operators] == record["operators"]
    calls = [(f"c0i{i}", plan.operators[ins.target].qualified_name, len(ins.args))
             for i, ins in enumerate(plan.chains[0])
             if ins.kind == "kernel" and ins.target is not None]
    assert calls == [(r["id"], r["operator"], r["arg_count"]) for r in record["instructions"]
                     if r["kind"] == "KernelCall"]
    table = layer_table(info)
    assert [layer.ident for layer in table.layers] == [r["id"] for r in record["instructions"]]
    sidecar = sidecar_of(info)
    assert sidecar is not None and sidecar.kernel_provider == provider
    assert exporter_version(info) == MANIFEST["exporter"]["executorch"]


def test_tier1_arm_has_the_twelve_operators_and_ns_keeps_tier1_ops_int8() -> None:
    arm = MANIFEST["models"]["tier1"]["programs"]["arm"]
    ns = MANIFEST["models"]["tier1"]["programs"]["ns"]
    assert len(arm["instructions"]) == 12
    assert {"aten::sub.out", "aten::clamp.out", "aten::leaky_relu.out"} <= set(arm["operators"])
    assert not any(op.startswith("aten::") for op in ns["operators"])
    assert any(op.startswith("cortex_m_ns::") for op in ns["operators"])
    assert MANIFEST["exporter"]["executorch"].startswith("1.3.")

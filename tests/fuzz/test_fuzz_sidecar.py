"""Fuzz the sidecar reader: any JSON (or non-JSON) text yields a sidecar or a ConfigError."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hpx_executorch.sidecar import SCHEMA, read_sidecar, sidecar_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpx_core.errors import ConfigError

EXAMPLES = int(os.environ.get("HPX_FUZZ_EXAMPLES", "200"))
SHA = hashlib.sha256(b"program").hexdigest()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["kernel_provider", "requires_ns_ops", "planned_arena_size", "inputs", "outputs",
          "operators"]  # fmt: skip


@st.composite
def manifests(draw: st.DrawFn) -> str:
    """Mostly well-framed manifests with fuzzed field values; sometimes raw text."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=200))
    doc: dict[str, Any] = {"schema": SCHEMA, "pte_sha256": SHA}
    for key in draw(st.lists(st.sampled_from(FIELDS), unique=True)):
        doc[key] = draw(json_values)
    if draw(st.booleans()):
        doc["operators"] = {
            k: draw(json_values | st.lists(st.text(max_size=30), max_size=3))
            for k in ("cortex_m", "cortex_m_ns", "portable")
        }
    if draw(st.integers(0, 9)) == 0:
        doc[draw(st.sampled_from(["schema", "pte_sha256"]))] = draw(json_values)
    return json.dumps(doc)


def test_fuzz_sidecar_reader() -> None:
    outcomes: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        pte = Path(tmp) / "model.pte"

        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
        @given(manifests())
        def run(text: str) -> None:
            sidecar_path(pte).write_text(text, encoding="utf-8", errors="surrogatepass")
            try:
                read_sidecar(pte, SHA)
            except ConfigError as error:
                assert error.hint, error.message
                outcomes["ConfigError"] += 1
            else:
                outcomes["accepted"] += 1

        run()
    total = sum(outcomes.values())
    detail = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    print(f"\nfuzz sidecar: {total} inputs ({detail}), no other exception")
    assert total >= EXAMPLES

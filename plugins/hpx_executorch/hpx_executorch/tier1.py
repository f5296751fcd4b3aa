"""Operator matching between two programs of one model through the Tier-1 export manifest.

The arm and ns programs of a model differ: where arm keeps an op as a float portable kernel
inside a dequantize/requantize island, ns calls one int8 ``cortex_m_ns::`` kernel. The kernels
both programs share (quantize, convolutions, the final dequantize) are paired in program order,
aligned from the end so the output dequantize pairs with the output dequantize; everything else
is the Tier-1 region, compared as a sum. Layer indices are kernel-call positions, which is how
hpx numbers ExecuTorch layers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.errors import ConfigError

HINT = "use the tier1_manifest.json written by tools/export/executorch_tier1"


@attrs.frozen
class Pairing:
    """Paired layer indices (base, candidate) and each side's Tier-1 region."""

    pairs: tuple[tuple[int, int], ...]
    base_region: tuple[int, ...]
    candidate_region: tuple[int, ...]


def _calls(manifest: Mapping[str, Any], model: str, provider: str) -> list[str]:
    try:
        program = manifest["models"][model]["programs"][provider]
    except KeyError:
        raise ConfigError(f"the manifest has no {provider} program of model {model!r}",
                          HINT) from None
    return [i["operator"] for i in program["instructions"] if i["kind"] == "KernelCall"]


def _lcs_from_end(base: Sequence[str], cand: Sequence[str]) -> list[tuple[int, int]]:
    """Longest common subsequence of operator names, preferring matches near the end."""
    rb, rc = list(reversed(base)), list(reversed(cand))
    table = [[0] * (len(rc) + 1) for _ in range(len(rb) + 1)]
    for i in range(len(rb) - 1, -1, -1):
        for j in range(len(rc) - 1, -1, -1):
            table[i][j] = (table[i + 1][j + 1] + 1 if rb[i] == rc[j]
                           else max(table[i + 1][j], table[i][j + 1]))
    pairs, i, j = [], 0, 0
    while i < len(rb) and j < len(rc):
        if rb[i] == rc[j]:
            pairs.append((len(rb) - 1 - i, len(rc) - 1 - j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return sorted(pairs)


def pair_programs(manifest: Mapping[str, Any], model: str, base: str, candidate: str) -> Pairing:
    b, c = _calls(manifest, model, base), _calls(manifest, model, candidate)
    pairs = _lcs_from_end(b, c)
    paired_b, paired_c = {p[0] for p in pairs}, {p[1] for p in pairs}
    return Pairing(tuple(pairs), tuple(i for i in range(len(b)) if i not in paired_b),
                   tuple(i for i in range(len(c)) if i not in paired_c))


def match_manifest(manifest: Mapping[str, Any], model: str, base: str,
                   candidate: str) -> dict[str, Any]:
    """A match manifest for ``hpx compare --manifest`` (the core's ``hpx_match: 1`` format)."""
    pairing = pair_programs(manifest, model, base, candidate)
    programs = manifest["models"][model]["programs"]
    return {"hpx_match": 1, "base_model_sha256": programs[base]["sha256"],
            "candidate_model_sha256": programs[candidate]["sha256"],
            "layers": [list(p) for p in pairing.pairs]}


def load_manifest(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read export manifest {path}: {exc}", HINT) from None
    if not isinstance(doc, dict) or doc.get("schema") != "hpx.executorch-tier1-manifest/1":
        raise ConfigError(f"{path} is not a Tier-1 export manifest", HINT)
    return doc

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

from hpx_core.sdk import ConfigError

HINT = "use the tier1_manifest.json written by tools/export/executorch_tier1"
SCHEMA = "hpx.executorch-tier1-manifest/1"
REGION = "Tier-1"


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
    """A match manifest for ``hpx compare --manifest`` (the core's ``hpx_match: 1`` format).

    The unpaired kernels of each side form the ``Tier-1`` region, compared as one sum.
    """
    pairing = pair_programs(manifest, model, base, candidate)
    programs = manifest["models"][model]["programs"]
    return {"hpx_match": 1, "base_model_sha256": programs[base]["sha256"],
            "candidate_model_sha256": programs[candidate]["sha256"],
            "layers": [list(p) for p in pairing.pairs],
            "regions": {REGION: {"base": list(pairing.base_region),
                                 "candidate": list(pairing.candidate_region)}}}


def is_tier1_manifest(document: Any) -> bool:
    return isinstance(document, Mapping) and document.get("schema") == SCHEMA


def _provider(programs: Mapping[str, Any], sha256: str) -> str | None:
    return next((name for name, p in programs.items() if p.get("sha256") == sha256), None)


def match_for_bundles(manifest: Mapping[str, Any], model: str | None, base_sha256: str,
                      candidate_sha256: str) -> dict[str, Any]:
    """The match manifest for the two programs with these SHA-256s (of ``model`` if given)."""
    models: Mapping[str, Any] = manifest.get("models") or {}
    if model is not None and model not in models:
        raise ConfigError(f"the export manifest has no model {model!r} "
                          f"(it has {', '.join(sorted(models))})", "pass one of them to --model")
    for name in [model] if model is not None else sorted(models):
        programs = models[name]["programs"]
        base, cand = _provider(programs, base_sha256), _provider(programs, candidate_sha256)
        if base is not None and cand is not None:
            return match_manifest(manifest, name, base, cand)
    where = f"model {model!r}" if model is not None else "any one model"
    raise ConfigError(
        f"the export manifest has no programs of {where} with the bundles' SHA-256s "
        f"({base_sha256[:12]}..., {candidate_sha256[:12]}...)",
        "profile the PTEs the manifest lists, or re-export them together",
    )


def load_manifest(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read export manifest {path}: {exc}", HINT) from None
    if not isinstance(doc, dict) or not is_tier1_manifest(doc):
        raise ConfigError(f"{path} is not a Tier-1 export manifest", HINT)
    return doc

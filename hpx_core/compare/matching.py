"""A match manifest: the user's explicit consent to compare runs of two different models.

Two bundles of different models are refused by default (their numbers would mean nothing
side by side). A re-quantized or re-exported model is still worth comparing; the manifest names
both model SHA-256s, so it cannot silently apply to other files, and may pair layers by index
where the op sequences differ.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from hpx_core.errors import ConfigError

MATCH_SCHEMA = 1
_HINT = "see docs/compare.md for the match manifest format"


@attrs.frozen
class MatchManifest:
    """Which two models may be compared, and optionally which layers correspond."""

    base_model_sha256: str
    candidate_model_sha256: str
    layers: tuple[tuple[int, int], ...] = ()


def _pairs(raw: Any, path: Path) -> tuple[tuple[int, int], ...]:
    if raw is None:
        return ()
    try:
        pairs = tuple((int(a), int(b)) for a, b in raw)
    except (TypeError, ValueError):
        raise ConfigError(
            f"{path}: 'layers' must be a list of [base_index, candidate_index] pairs", _HINT
        ) from None
    for side in (0, 1):
        seen = [pair[side] for pair in pairs]
        if len(seen) != len(set(seen)):
            raise ConfigError(f"{path}: a layer index appears twice in 'layers'", _HINT)
    return pairs


def load_match_manifest(path: Path) -> MatchManifest:
    """Read and check a match manifest (YAML or JSON)."""
    try:
        data = YAML(typ="safe").load(path.read_text("utf-8"))
    except (OSError, YAMLError) as error:
        raise ConfigError(f"cannot read match manifest {path} ({error})", _HINT) from None
    if not isinstance(data, dict) or data.get("hpx_match") != MATCH_SCHEMA:
        raise ConfigError(
            f"{path} is not a match manifest (needs 'hpx_match: {MATCH_SCHEMA}')", _HINT
        )
    unknown = sorted(
        set(data) - {"hpx_match", "base_model_sha256", "candidate_model_sha256", "layers"}
    )
    if unknown:
        raise ConfigError(f"{path}: unknown keys {unknown}", _HINT)
    try:
        base, cand = str(data["base_model_sha256"]), str(data["candidate_model_sha256"])
    except KeyError as missing:
        raise ConfigError(f"{path}: {missing} is required", _HINT) from None
    return MatchManifest(base.lower(), cand.lower(), _pairs(data.get("layers"), path))

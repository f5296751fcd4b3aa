"""A match manifest: the user's explicit consent to compare runs of two different models.

Two bundles of different models are refused by default (their numbers would mean nothing
side by side). A re-quantized or re-exported model is still worth comparing; the manifest names
both model SHA-256s, so it cannot silently apply to other files, may pair layers by index
where the op sequences differ, and may name regions (sets of layers on each side, such as the
ops one program fuses and the other does not) whose sums are compared as one number.

An engine may read its own export manifest and answer in this format (the
``hpx_match_manifest`` hook), so users pass the file their exporter wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from hpx_core.contract import MatchManifest, Region
from hpx_core.errors import ConfigError

MATCH_SCHEMA = 1
_HINT = "see docs/compare.md for the match manifest format"
_KEYS = {"hpx_match", "base_model_sha256", "candidate_model_sha256", "layers", "regions"}


def _pairs(raw: Any, where: str) -> tuple[tuple[int, int], ...]:
    if raw is None:
        return ()
    try:
        pairs = tuple((int(a), int(b)) for a, b in raw)
    except (TypeError, ValueError):
        raise ConfigError(
            f"{where}: 'layers' must be a list of [base_index, candidate_index] pairs", _HINT
        ) from None
    for side in (0, 1):
        seen = [pair[side] for pair in pairs]
        if len(seen) != len(set(seen)):
            raise ConfigError(f"{where}: a layer index appears twice in 'layers'", _HINT)
    return pairs


def _indices(raw: Any, where: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(i, int) for i in raw):
        raise ConfigError(f"{where} must be a list of layer indices", _HINT)
    return tuple(raw)


def _regions(raw: Any, where: str) -> tuple[Region, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: 'regions' maps a name to {{base: [...], candidate: [...]}}",
                          _HINT)
    regions = []
    for name, sides in raw.items():
        if not isinstance(sides, Mapping) or set(sides) != {"base", "candidate"}:
            raise ConfigError(f"{where}: region {name!r} needs exactly 'base' and 'candidate'",
                              _HINT)
        regions.append(Region(str(name), _indices(sides["base"], f"{where}: {name}.base"),
                              _indices(sides["candidate"], f"{where}: {name}.candidate")))
    return tuple(regions)


def is_match_manifest(document: Any) -> bool:
    """True for a document in the core's format (as opposed to an engine's export manifest)."""
    return isinstance(document, Mapping) and "hpx_match" in document


def parse_match_manifest(data: Any, where: str) -> MatchManifest:
    """Check a document in the ``hpx_match: 1`` format; ``where`` names it in errors."""
    if not isinstance(data, Mapping) or data.get("hpx_match") != MATCH_SCHEMA:
        raise ConfigError(
            f"{where} is not a match manifest (needs 'hpx_match: {MATCH_SCHEMA}')", _HINT
        )
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown keys {unknown}", _HINT)
    try:
        base, cand = str(data["base_model_sha256"]), str(data["candidate_model_sha256"])
    except KeyError as missing:
        raise ConfigError(f"{where}: {missing} is required", _HINT) from None
    return MatchManifest(base.lower(), cand.lower(), _pairs(data.get("layers"), where),
                         _regions(data.get("regions"), where))


def read_manifest_document(path: Path) -> Any:
    """The parsed YAML or JSON of ``path`` (a match manifest or an engine's export manifest)."""
    try:
        return YAML(typ="safe").load(path.read_text("utf-8"))
    except (OSError, YAMLError) as error:
        raise ConfigError(f"cannot read match manifest {path} ({error})", _HINT) from None


def load_match_manifest(path: Path) -> MatchManifest:
    """Read and check a match manifest (YAML or JSON) in the core's format."""
    return parse_match_manifest(read_manifest_document(path), str(path))

"""``hpx compare`` as one typed call: load, verify, compare, judge and write the outputs."""

from __future__ import annotations

import json
from pathlib import Path

import attrs

from hpx_core.atomic import write_atomic
from hpx_core.compare.diff import Comparison, compare
from hpx_core.compare.export import write_exports
from hpx_core.compare.junit import write_junit
from hpx_core.compare.matching import (
    is_match_manifest,
    parse_match_manifest,
    read_manifest_document,
)
from hpx_core.compare.policy import PolicyOutcome, apply_policy, default_policy, load_policy
from hpx_core.contract import ManifestRequest, MatchManifest
from hpx_core.errors import ConfigError, HpxError
from hpx_core.results.locate import bundle_in
from hpx_core.results.view import BundleView, load_view

DEFAULT_POLICY = "default"


class RegressionError(HpxError):
    """The candidate regressed beyond what the policy allows."""

    exit_code = 1


@attrs.frozen
class CompareResult:
    """The comparison, the policy verdict (if a policy was applied) and the files written."""

    comparison: Comparison
    outcome: PolicyOutcome | None
    written: tuple[Path, ...]


def resolve_match(
    path: Path, model: str | None, base: BundleView, candidate: BundleView
) -> MatchManifest:
    """The match manifest in ``path``: the core's format, or an engine's export manifest.

    An export manifest is read by the plugin of the base bundle's engine, which picks the two
    programs by the bundles' model SHA-256s (of ``model`` when given).
    """
    document = read_manifest_document(path)
    if is_match_manifest(document):
        if model is not None:
            raise ConfigError(f"--model {model} selects a model of an export manifest, but "
                              f"{path} is a match manifest", "drop --model")
        return parse_match_manifest(document, str(path))
    from hpx_core.hooks import EngineHooks  # plugins load only for export manifests
    from hpx_core.plugins import default_registry

    registry = default_registry()
    answer: MatchManifest | None = None
    if base.engine in registry.engines:
        answer = EngineHooks(registry).match_manifest(base.engine, ManifestRequest(
            document, model, base.model_sha256 or "", candidate.model_sha256 or ""))
    if answer is None:
        raise ConfigError(
            f"{path} is neither a match manifest nor an export manifest of the {base.engine} "
            "engine", "pass a file with 'hpx_match: 1' (docs/compare.md) or the manifest the "
            "engine's exporter wrote",
        )
    return answer


def run_compare(
    base: Path,
    candidate: Path,
    *,
    policy: str | None = None,
    junit: Path | None = None,
    manifest: Path | None = None,
    model: str | None = None,
    output_dir: Path | None = None,
) -> CompareResult:
    """Compare two bundles; a policy is applied when ``policy`` or ``junit`` is given.

    ``policy`` is a YAML file or ``"default"`` (zero tolerance for emulated runs, the measured
    spread for silicon runs). The caller decides what a failed policy means (the CLI exits 1).
    ``base`` and ``candidate`` are bundles or folders holding one (``--output-dir`` of a run).
    """
    if model is not None and manifest is None:
        raise ConfigError("--model needs --manifest", "pass the export manifest with --manifest")
    base_view, candidate_view = load_view(bundle_in(base)), load_view(bundle_in(candidate))
    match = (resolve_match(manifest, model, base_view, candidate_view)
             if manifest is not None else None)
    comparison = compare(base_view, candidate_view, match)
    outcome = None
    if policy is not None or junit is not None:
        chosen = (
            default_policy(comparison)
            if policy in (None, DEFAULT_POLICY)
            else load_policy(Path(str(policy)))
        )
        outcome = apply_policy(comparison, chosen)
    written: list[Path] = []
    if junit is not None and outcome is not None:
        written.append(write_junit(junit, comparison, outcome))
    if output_dir is not None:
        # matplotlib loads only when a report is asked for
        from hpx_core.compare.page import comparison_report, delta_node_data

        written += write_exports(output_dir, comparison, outcome)
        written.append(
            write_atomic(output_dir / "report.html", comparison_report(comparison, outcome))
        )
        overlay = json.dumps(delta_node_data(comparison), indent=2) + "\n"
        written.append(write_atomic(output_dir / "model_explorer_delta.json", overlay))
    return CompareResult(comparison, outcome, tuple(written))

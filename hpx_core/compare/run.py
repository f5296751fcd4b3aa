"""``hpx compare`` as one typed call: load, verify, compare, judge and write the outputs."""

from __future__ import annotations

import json
from pathlib import Path

import attrs

from hpx_core.compare.diff import Comparison, compare
from hpx_core.compare.export import write_atomic, write_exports
from hpx_core.compare.junit import write_junit
from hpx_core.compare.matching import load_match_manifest
from hpx_core.compare.policy import PolicyOutcome, apply_policy, default_policy, load_policy
from hpx_core.compare.view import load_view
from hpx_core.errors import HpxError
from hpx_core.overlay import delta_node_data

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


def run_compare(
    base: Path,
    candidate: Path,
    *,
    policy: str | None = None,
    junit: Path | None = None,
    manifest: Path | None = None,
    output_dir: Path | None = None,
) -> CompareResult:
    """Compare two bundles; a policy is applied when ``policy`` or ``junit`` is given.

    ``policy`` is a YAML file or ``"default"`` (zero tolerance for emulated runs, the measured
    spread for silicon runs). The caller decides what a failed policy means (the CLI exits 1).
    """
    match = load_match_manifest(manifest) if manifest is not None else None
    comparison = compare(load_view(base), load_view(candidate), match)
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
        from hpx_core.report import comparison_report  # matplotlib only when a report is asked

        written += write_exports(output_dir, comparison, outcome)
        written.append(
            write_atomic(output_dir / "report.html", comparison_report(comparison, outcome))
        )
        overlay = json.dumps(delta_node_data(comparison), indent=2) + "\n"
        written.append(write_atomic(output_dir / "model_explorer_delta.json", overlay))
    return CompareResult(comparison, outcome, tuple(written))

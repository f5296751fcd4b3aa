"""Regression policies: a small versioned YAML, one rule per metric, applied to a comparison.

``layer_check`` and ``outputs`` are the metrics that are not counts: the candidate's layer
check must find every layer exact against the host, and its outputs must be within the
tolerance of the host reference (the default policy asks each of a candidate that has it).

``memory`` and ``memory.<figure>`` gate bytes the memory pass measured (``memory.stack``,
``memory.arena``, ``memory.heap``, ``memory.region.SRAM``, ...; ``memory`` alone: every figure
either run has, one check each). Their names come from the runs, so a policy may name a buffer
that only some engines have: a run without it is ``missing``, as any absent number is. The
default policy does not gate memory. ``energy`` gates the median energy of one inference the
power pass measured (nJ; ``noise: spread`` allows the larger spread of either run); the
default policy does not gate it.

Emulated instruction counts are exact, so the default for two emulated runs allows no
regression at all; silicon counts jitter, so the default for silicon runs tolerates the larger
per-iteration spread (max - min) that either bundle recorded for that number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import attrs
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from hpx_core.compare.diff import ENERGY, MEMORY, Comparison, LayerDelta, TotalDelta
from hpx_core.errors import ConfigError
from hpx_core.results.check_view import divergence_text
from hpx_core.results.outputs import OutputVerdict

POLICY_SCHEMA = 1
Direction = Literal["lower", "higher"]
Noise = Literal["none", "spread"]
OnMissing = Literal["fail", "warn", "skip"]
Status = Literal["pass", "fail", "warn", "skip"]
# Policy metric -> the comparison's total of that name ("layers" means every matched layer).
TOTALS = {
    "whole_inference": "whole inference",
    "layer_sum": "layer sum",
    "text_bytes": "text bytes",
    "data_bytes": "data bytes",
    "bss_bytes": "bss bytes",
    "energy": ENERGY,
}
NUMERICS = "layer_check"  # every layer of the candidate exact against the host
OUTPUTS = "outputs"  # the candidate's outputs within the tolerance of the host reference
METRICS = (*TOTALS, "layers", NUMERICS, OUTPUTS, MEMORY)
MEMORY_PREFIX = f"{MEMORY}."  # memory.<figure>: one of the memory pass's figures


def is_memory(metric: str) -> bool:
    """``memory`` (every memory figure) or ``memory.<figure>`` (one)."""
    return metric == MEMORY or (metric.startswith(MEMORY_PREFIX) and metric != MEMORY_PREFIX)
_HINT = "see docs/compare.md for the policy format"


@attrs.frozen
class Rule:
    """How much one metric may get worse before the comparison fails."""

    direction: Direction = "lower"
    max_regression_pct: float | None = None
    max_regression_abs: int | None = None
    noise: Noise = "none"
    missing: OnMissing = "fail"

    def allowed(self, base: int, noise: int) -> float:
        """The largest regression that still passes: the most generous limit, plus noise."""
        limits = [float(v) for v in (self.max_regression_abs,) if v is not None]
        if self.max_regression_pct is not None:
            limits.append(self.max_regression_pct * abs(base) / 100.0)
        return max(limits, default=0.0) + (noise if self.noise == "spread" else 0)


@attrs.frozen
class Policy:
    """Named rules by metric; the source says where it came from (a file or the default)."""

    rules: dict[str, Rule]
    source: str


@attrs.frozen
class Check:
    """One rule applied to one number."""

    metric: str
    subject: str
    status: Status
    message: str
    base: int | None = None
    candidate: int | None = None
    delta: int | None = None
    allowed: float | None = None


@attrs.frozen
class PolicyOutcome:
    """Every check; the comparison fails if any check failed."""

    policy: Policy
    checks: tuple[Check, ...]

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.status == "fail")

    @property
    def passed(self) -> bool:
        return not self.failures


def default_policy(comparison: Comparison) -> Policy:
    """Zero tolerance for two emulated runs; spread-based when either ran on silicon."""
    emulated = comparison.base.emulated and comparison.candidate.emulated
    noise: Noise = "none" if emulated else "spread"
    strict = Rule(max_regression_pct=0.0, noise=noise)
    kind = "emulated, zero tolerance" if emulated else "silicon, within the measured spread"
    rules = {"whole_inference": strict, "layer_sum": strict,
             "layers": attrs.evolve(strict, missing="warn")}
    check = comparison.candidate.layer_check
    if check is not None and check.statuses:  # a candidate checked by hpx must be exact
        rules[NUMERICS] = Rule()
    if isinstance(comparison.candidate.outputs, OutputVerdict):  # a wrong answer never passes
        rules[OUTPUTS] = Rule()
    return Policy(rules=rules, source=f"default ({kind})")


def _choice(
    data: dict[str, Any], key: str, allowed: tuple[str, ...], default: str, where: str
) -> str:
    value = str(data.get(key, default))
    if value not in allowed:
        raise ConfigError(f"{where}.{key} is {value!r}; expected one of {allowed}", _HINT)
    return value


def _number(data: dict[str, Any], key: str, where: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"{where}.{key} must be a number >= 0, not {value!r}", _HINT)
    return float(value)


def _rule(name: str, data: Any) -> Rule:
    where = f"metrics.{name}"
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping", _HINT)
    unknown = sorted(set(data) - {f.name for f in attrs.fields(Rule)})
    if unknown:
        raise ConfigError(f"{where}: unknown keys {unknown}", _HINT)
    absolute = _number(data, "max_regression_abs", where)
    return Rule(
        direction=_choice(data, "direction", ("lower", "higher"), "lower", where),  # type: ignore[arg-type]
        max_regression_pct=_number(data, "max_regression_pct", where),
        max_regression_abs=None if absolute is None else int(absolute),
        noise=_choice(data, "noise", ("none", "spread"), "none", where),  # type: ignore[arg-type]
        missing=_choice(data, "missing", ("fail", "warn", "skip"), "fail", where),  # type: ignore[arg-type]
    )


def load_policy(path: Path) -> Policy:
    """Read a policy file; ConfigError names the bad key."""
    try:
        data = YAML(typ="safe").load(path.read_text("utf-8"))
    except (OSError, YAMLError) as error:
        raise ConfigError(f"cannot read policy {path} ({error})", _HINT) from None
    if not isinstance(data, dict) or data.get("hpx_policy") != POLICY_SCHEMA:
        raise ConfigError(
            f"{path} is not an hpx policy (needs 'hpx_policy: {POLICY_SCHEMA}')", _HINT
        )
    metrics = data.get("metrics")
    if not isinstance(metrics, dict) or not metrics:
        raise ConfigError(f"{path}: 'metrics' must map metric names to rules", _HINT)
    unknown = sorted(str(m) for m in metrics if m not in METRICS and not is_memory(str(m)))
    if unknown:
        raise ConfigError(f"{path}: unknown metrics {unknown}; known: {list(METRICS)} and "
                          "memory.<figure> (memory.stack, memory.arena, ...)", _HINT)
    return Policy({name: _rule(name, rule) for name, rule in metrics.items()}, str(path))


def _judge(
    metric: str, subject: str, rule: Rule, base: int | None, cand: int | None, noise: int
) -> Check:
    if base is None or cand is None:
        status: Status = "fail" if rule.missing == "fail" else rule.missing
        return Check(metric, subject, status, f"{subject}: missing in one bundle")
    delta = cand - base
    regression = delta if rule.direction == "lower" else -delta
    allowed = rule.allowed(base, noise)
    verdict: Status = "fail" if regression > allowed else "pass"
    pct = f" ({100.0 * delta / base:+.3f}%)" if base else ""
    message = f"{subject}: {base:,} -> {cand:,}, {delta:+,}{pct}; allowed regression {allowed:,.0f}"
    return Check(metric, subject, verdict, message, base, cand, delta, allowed)


def _total_check(metric: str, rule: Rule, total: TotalDelta) -> Check:
    noise = max(total.base_spread, total.candidate_spread)
    return _judge(metric, total.name, rule, total.base, total.candidate, noise)


def _layer_check(rule: Rule, d: LayerDelta) -> Check:
    subject = f"layer {d.base.index} {d.base.name} ({d.base.op})"
    noise = max(d.base.spread, d.candidate.spread)
    return _judge("layers", subject, rule, d.base.median, d.candidate.median, noise)


def _numerics_check(rule: Rule, comparison: Comparison) -> Check:
    """The candidate's layer check must find every layer exact; a failure names the layer."""
    check = comparison.candidate.layer_check
    if check is None or not check.statuses:
        status: Status = "fail" if rule.missing == "fail" else rule.missing
        reason = check.note if check is not None and check.note else "run without --check-layers"
        return Check(NUMERICS, "all layers exact", status, f"no layer check: {reason}")
    first = check.first_divergent
    if first is not None:
        subject = f"layer {first} {check.names.get(first, '')}".rstrip()
        return Check(NUMERICS, subject, "fail", divergence_text(check) or subject)
    unchecked = [i for i, s in sorted(check.statuses.items()) if s != "exact"]
    if unchecked:
        return Check(NUMERICS, f"layer {unchecked[0]} {check.names.get(unchecked[0], '')}",
                     "fail" if rule.missing == "fail" else rule.missing,
                     f"{len(unchecked)} layers not checked: {check.stopped or 'no reference'}")
    return Check(NUMERICS, "all layers exact", "pass",
                 f"all {len(check.statuses)} layers exact against the host")


def _outputs_check(rule: Rule, comparison: Comparison) -> Check:
    """The candidate's outputs must be within the tolerance of the host reference."""
    verdict = comparison.candidate.outputs
    if not isinstance(verdict, OutputVerdict):
        status: Status = "fail" if rule.missing == "fail" else rule.missing
        said = verdict.sentence() if verdict else "no output check: the engine has no reference"
        return Check(OUTPUTS, "outputs", status, said)
    return Check(OUTPUTS, "outputs", "pass" if verdict.passed else "fail", verdict.sentence())


def _memory_checks(metric: str, rule: Rule, comparison: Comparison) -> list[Check]:
    """``memory``: every figure either run measured, each under its own name; ``memory.<x>``:
    that figure. A run without the memory pass (or without that buffer) is ``missing``."""
    if metric == MEMORY:
        if not comparison.memory:
            status: Status = "fail" if rule.missing == "fail" else rule.missing
            return [Check(MEMORY, MEMORY, status, "memory: neither run has a memory pass")]
        return [_total_check(t.name, rule, t) for t in comparison.memory]
    found = comparison.memory_delta(metric)
    if found is None:
        return [_judge(metric, metric, rule, None, None, 0)]
    return [_total_check(metric, rule, found)]


def apply_policy(comparison: Comparison, policy: Policy) -> PolicyOutcome:
    """Check every metric the policy names; layers in index order."""
    checks: list[Check] = []
    names = {t.name for t in comparison.totals}
    for metric, rule in policy.rules.items():
        if is_memory(metric):
            checks += _memory_checks(metric, rule, comparison)
        elif metric == NUMERICS:
            checks.append(_numerics_check(rule, comparison))
        elif metric == OUTPUTS:
            checks.append(_outputs_check(rule, comparison))
        elif metric != "layers":
            total = TOTALS[metric]
            if total in names:
                checks.append(_total_check(metric, rule, comparison.total(total)))
            else:
                checks.append(_judge(metric, total, rule, None, None, 0))
        elif comparison.layers:
            ordered = sorted(comparison.layers, key=lambda d: d.base.index)
            checks += [_layer_check(rule, d) for d in ordered]
        else:
            reason = comparison.divergence.message if comparison.divergence else "no layers"
            status: Status = "fail" if rule.missing == "fail" else rule.missing
            checks.append(Check("layers", "per-layer", status, f"layers not compared: {reason}"))
    return PolicyOutcome(policy, tuple(checks))

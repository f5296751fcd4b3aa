"""Two validation bundles compared, and gated: ``hpx compare BASE CAND`` of two ``hpx
validate`` bundles.

Per output: the device's accuracy against the labels (top-1, top-k), its top-1 agreement with
the host, the share of elements that differ from the host and the mean absolute error, base
against candidate. A policy file gates them in its ``validation`` section::

    hpx_policy: 1
    validation:
      max_accuracy_drop_pct: 1.0      # device top-1 accuracy may fall by at most 1 point
      max_agreement_drop_pct: 0.0     # top-1 agreement with the host may not fall
      min_top1_agreement_pct: 99.0    # the candidate's device agrees with its host this often
      max_differing_share_pct: 0.0    # share of output elements that differ from the host

With ``--policy default`` (the emulated boards' outputs are exact) nothing may fall: no
accuracy drop and no lost agreement. A figure neither bundle has (no labels, no classifier
output) is not gated; one only one of them has fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from hpx_core.errors import ConfigError, UsageError
from hpx_core.suggest import did_you_mean
from hpx_core.validation.bundle import read_validation

POLICY_SCHEMA = 1
_HINT = "see docs/validation.md for the policy's validation section"
_KEYS = ("max_accuracy_drop_pct", "max_agreement_drop_pct", "min_top1_agreement_pct",
         "max_differing_share_pct")


@attrs.frozen
class ValidationPolicy:
    """Limits in percentage points; None: not gated."""

    max_accuracy_drop_pct: float | None = 0.0
    max_agreement_drop_pct: float | None = 0.0
    min_top1_agreement_pct: float | None = None
    max_differing_share_pct: float | None = None
    source: str = "default"


@attrs.frozen
class Row:
    """One figure of one output, base and candidate (percent or plain)."""

    output: str
    figure: str
    base: float | None
    candidate: float | None


@attrs.frozen
class Gate:
    passed: bool
    message: str


def load_validation_policy(policy: str | None) -> ValidationPolicy | None:
    """The policy named by ``--policy`` (a file, or ``default``); None without one."""
    if policy is None:
        return None
    if policy == "default":
        return ValidationPolicy()
    path = Path(policy)
    try:
        data = YAML(typ="safe").load(path.read_text("utf-8"))
    except (OSError, YAMLError) as error:
        raise ConfigError(f"cannot read policy {path} ({error})", _HINT) from None
    if not isinstance(data, dict) or data.get("hpx_policy") != POLICY_SCHEMA:
        raise ConfigError(f"{path} is not an hpx policy (needs 'hpx_policy: 1')", _HINT)
    section = data.get("validation")
    if not isinstance(section, dict) or not section:
        raise ConfigError(f"{path} has no 'validation' section to gate validation bundles",
                          _HINT)
    unknown = sorted(set(section) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{path}: validation has unknown keys {unknown}"
                          f"{did_you_mean(str(unknown[0]), _KEYS)}", f"known: {', '.join(_KEYS)}")
    values = {k: _number(section, k, path) for k in _KEYS}
    return ValidationPolicy(**values, source=str(path))


def _number(section: dict[str, Any], key: str, path: Path) -> float | None:
    value = section.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"{path}: validation.{key} must be a number >= 0, not {value!r}", _HINT)
    return float(value)


def compare_validations(base: Path, candidate: Path) -> list[Row]:
    """Every output's figures of both bundles (verified first), matched by output name."""
    one, two = read_validation(base), read_validation(candidate)
    outputs = {o["tensor"]: o for o in one["outputs"]}
    rows: list[Row] = []
    for cand in two["outputs"]:
        base_output = outputs.get(cand["tensor"])
        if base_output is None:
            raise UsageError(f"{candidate} validates output {cand['tensor']}, which {base} "
                             "does not", "compare validations of the same model")
        for figure in ("device_top1", "device_topk", "top1_agreement", "differing_share",
                       "mean_abs_error"):
            rows.append(Row(cand["tensor"], figure, _figure(base_output, figure),
                            _figure(cand, figure)))
    return rows


def _figure(output: dict[str, Any], figure: str) -> float | None:
    if figure in ("device_top1", "device_topk"):
        accuracy = output.get("accuracy")
        return 100.0 * accuracy[figure] if accuracy else None
    value = output.get(figure)
    if value is None:
        return None
    return 100.0 * value if figure in ("top1_agreement", "differing_share") else float(value)


def judge(rows: list[Row], policy: ValidationPolicy) -> list[Gate]:
    """Each limit of ``policy`` against each output's figures (those either bundle has)."""
    limits = {
        "device_top1": (_drop, policy.max_accuracy_drop_pct),
        "top1_agreement": (_drop, policy.max_agreement_drop_pct),
        "differing_share": (_at_most, policy.max_differing_share_pct),
    }
    gates: list[Gate] = []
    for row in rows:
        if row.base is None and row.candidate is None:
            continue
        check, limit = limits.get(row.figure, (_drop, None))
        if limit is not None:
            gates.append(check(row, limit))
        if row.figure == "top1_agreement" and policy.min_top1_agreement_pct is not None:
            gates.append(_at_least(row, policy.min_top1_agreement_pct))
    return gates


def _drop(row: Row, limit: float) -> Gate:
    if row.base is None or row.candidate is None:
        return Gate(False, f"{row.output} {row.figure}: missing in one bundle")
    drop = row.base - row.candidate
    return Gate(drop <= limit + 1e-9, f"{row.output} {row.figure}: {row.base:.2f}% -> "
                f"{row.candidate:.2f}%, a drop of {drop:.2f} points (allowed {limit:g})")


def _at_least(row: Row, floor: float) -> Gate:
    value = row.candidate
    return Gate(value is not None and value >= floor,
                f"{row.output} {row.figure}: {_pct(value)} (at least {floor:g}%)")


def _at_most(row: Row, ceiling: float) -> Gate:
    value = row.candidate
    return Gate(value is not None and value <= ceiling,
                f"{row.output} {row.figure}: {_pct(value)} (at most {ceiling:g}%)")


def _pct(value: float | None) -> str:
    return "missing" if value is None else f"{value:.2f}%"

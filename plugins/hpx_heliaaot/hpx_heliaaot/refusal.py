"""heliaAOT's refusals in hpx's words: one line of cause, and a hint that matches the cause.

The compiler raises whatever its code raises: a pydantic ``ValidationError`` when a value it
read from the model does not fit its graph records, a ``ValueError`` for an operator it has no
parser for, anything else for its own failures. Its full output, traceback included, is in the
run's log; the hint says where.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hpx_core.sdk import ModelError

# heliaAOT's graph records -> the model field each is read from
_MODEL_FIELDS = {
    "AirModel.name": "subgraphs[0].name",
    "AirModel.description": "description",
    "AirTensor.local_name": "subgraphs[0].tensors[].name",
}
_UNKNOWN_OPERATOR = "is not registered in the parser"


def refusal(error: Exception, model: str, version: str, log: Path) -> ModelError:
    """The ModelError for ``error``, raised by heliaAOT ``version`` compiling ``model``."""
    full = f"heliaAOT's full output is in {log}"
    invalid = _invalid_field(error)
    if invalid is not None:
        field, problem = invalid
        source = _MODEL_FIELDS.get(field)
        origin = f"{source} of {model}" if source else model
        return ModelError(
            f"heliaAOT {version} cannot read {model}: {field}: {problem}",
            f"heliaAOT builds {field} from {origin}, and the value there is not valid for it; "
            f"correct it or re-export the model with a current converter; {full}",
        )
    cause = f"heliaAOT {version} cannot compile {model}: {_one_line(error)}"
    if _UNKNOWN_OPERATOR in str(error) or isinstance(error, NotImplementedError):
        return ModelError(cause, f"check the model's operators against heliaAOT's supported "
                                 f"list, or profile it with another engine; {full}")
    return ModelError(cause, f"{full}, with the traceback")


def _invalid_field(error: Exception) -> tuple[str, str] | None:
    """(``Record.field``, what is wrong) of a pydantic validation error, else None."""
    title, errors = getattr(error, "title", None), getattr(error, "errors", None)
    if not isinstance(title, str) or not callable(errors):
        return None
    found: list[dict[str, Any]] = errors()
    if not found:
        return None
    first = found[0]
    field = ".".join([title, *(str(part) for part in first.get("loc", ()))])
    problem = f"{first.get('msg', 'invalid')} (got {_short(first.get('input'))})"
    more = f"; and {len(found) - 1} more" if len(found) > 1 else ""
    return field, problem + more


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _one_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__

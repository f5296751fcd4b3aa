"""Render a bundle as one self-contained HTML file (and the pages other modules render).

The page embeds its CSS and SVG charts and references nothing outside itself, so it opens from
a CI artifact or an e-mail attachment with no network. jinja2 autoescapes every value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

from hpx_core.atomic import write_atomic
from hpx_core.report.charts import layer_chart
from hpx_core.report.memory import memory_chart, region_bars
from hpx_core.results.check_view import divergence_text
from hpx_core.results.memory_text import layer_cells, layer_columns, summary_lines
from hpx_core.results.view import BundleView

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("hpx_core.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _num(value: object) -> str:
    return "-" if value is None else f"{value:,}"


def _pct(value: float | None, signed: bool = True) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}%" if signed else f"{value:.2f}%"


REPOSITORIES = "repositories"
REPOSITORY_COLUMNS = ("name", "url", "commit", "license", "declared_by")


def _flat(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Nested provenance as dotted key/value rows; the repositories are a table of their own
    (:func:`_repositories`), and a list of words (a command line) reads as one line."""
    rows: list[tuple[str, str]] = []
    for key, value in sorted(data.items()):
        name = f"{prefix}{key}"
        if not prefix and key == REPOSITORIES and isinstance(value, list):
            continue
        if isinstance(value, Mapping):
            rows += _flat(value, f"{name}.")
        elif isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
            rows.append((name, " ".join(str(v) for v in value)))
        else:
            rows.append((name, value if isinstance(value, str) else json.dumps(value)))
    return rows


def _repositories(data: Mapping[str, Any]) -> list[dict[str, str]]:
    """The repositories the firmware was built from, one row each (name, url, commit,
    license, who pinned it)."""
    found = data.get(REPOSITORIES)
    if not isinstance(found, list):
        return []
    return [{k: "-" if r.get(k) is None else str(r.get(k)) for k in REPOSITORY_COLUMNS}
            for r in found if isinstance(r, Mapping)]


_ENV.filters.update(num=_num, pct=_pct, flat=_flat, repositories=_repositories)


def _coverage(view: BundleView) -> float | None:
    if not view.whole_median or view.layer_sum is None:
        return None
    return 100.0 * view.layer_sum / view.whole_median


def render_page(template: str, **values: Any) -> str:
    """A page from one of the report templates (for reports defined in other modules)."""
    return _ENV.get_template(template).render(**values)


def bundle_report(view: BundleView) -> str:
    """The HTML page of one bundle."""
    memory = view.memory
    return _ENV.get_template("bundle.html.j2").render(
        view=view,
        coverage=_coverage(view),
        chart=layer_chart(view) if view.layers else None,
        total=view.layer_sum or 0,
        check=view.layer_check,
        divergence=divergence_text(view.layer_check) if view.layer_check else None,
        pass_sections=_pass_sections(view),
        memory=memory,
        memory_lines=summary_lines(memory) if memory else [],
        regions=region_bars(memory) if memory else (),
        memory_chart=memory_chart(memory) if memory and memory.layers else None,
        memory_columns=layer_columns(memory) if memory else [],
        memory_cells={x.index: layer_cells(memory, x.index) for x in view.layers}
        if memory else {},
        energy=view.energy,
        energy_cells=_energy_cells(view),
        energy_chart=_energy_chart(view),
    )


def _energy_cells(view: BundleView) -> dict[int, str]:
    """Each layer's median µJ in the power pass, by layer index."""
    layers = (view.energy or {}).get("layers") or []
    return {int(x["index"]): f"{float(x['median_uj']):.3f}" for x in layers}


def _energy_chart(view: BundleView) -> str | None:
    if not view.energy or "median_uj" not in view.energy:
        return None
    from hpx_core.report.energy import energy_chart  # numpy: only for a bundle with energy

    return energy_chart(view.path)


def _pass_sections(view: BundleView) -> list[str]:
    """The HTML sections installed passes make of their files in the bundle."""
    from hpx_core.results.extensions import bundle_extensions, documents_of

    found = (e.html(documents_of(e, view.pass_documents)) for e in bundle_extensions()
             if documents_of(e, view.pass_documents))
    return [section for section in found if section]


def write_report(path: Path, html: str) -> Path:
    """Write a report atomically."""
    return write_atomic(path, html)

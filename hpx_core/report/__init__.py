"""Self-contained HTML reports (inline SVG charts, no network): the page machinery and a
bundle's page; a comparison's page is :mod:`hpx_core.compare.page`, a matrix's heat map
:mod:`hpx_core.matrix.heatmap`."""

from hpx_core.report.html import bundle_report, render_page, write_report

__all__ = ["bundle_report", "render_page", "write_report"]

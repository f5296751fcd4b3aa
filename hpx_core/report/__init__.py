"""Self-contained HTML reports of a bundle or a comparison (inline SVG charts, no network)."""

from hpx_core.report.html import bundle_report, comparison_report, write_report

__all__ = ["bundle_report", "comparison_report", "write_report"]

"""The sample pass (tests/fixtures/plugins/hpx_sample_pass) installed the way pip would make it
visible: the package on ``sys.path`` beside a ``.dist-info`` folder that declares its
``hpx.passes`` entry point."""

from __future__ import annotations

from pathlib import Path

from hpx_core.cli.extensions import COMMAND_GROUP
from hpx_core.plugins import PASS_GROUP

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "plugins" / "hpx_sample_pass"
ENTRY = "record-census = hpx_sample_pass.census:RecordCensus"
COMMAND = "census = hpx_sample_pass.command:census"


def sample_pass_paths(root: Path) -> tuple[Path, Path]:
    """The folders that make the sample pass installed: the package and, in ``root``, the
    ``.dist-info`` declaring its entry point (put both on ``sys.path``)."""
    dist = root / "hpx_sample_pass-0.1.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hpx-sample-pass\nVersion: 0.1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        f"[{PASS_GROUP}]\n{ENTRY}\n\n[{COMMAND_GROUP}]\n{COMMAND}\n", encoding="utf-8")
    return PACKAGE_ROOT, root

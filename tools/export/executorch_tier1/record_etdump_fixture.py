"""Record the ETDump fixture: the files a real qemu-m55 run of tier1_arm.pte with
``--check-layers`` wrote into its bundle, copied into ``tests/fixtures/executorch_etdump``
(the debug buffer xz-compressed). Run with a Python that has hpx installed."""

from __future__ import annotations

import lzma
import shutil
import sys
import tempfile
from pathlib import Path

from etdump_proof import FIXTURES, record_bundle

OUT = FIXTURES.parent / "executorch_etdump"


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="hpx-etdump-fixture-") as work:
        bundle = record_bundle(FIXTURES / "tier1_arm.pte", Path(work))
        shutil.copyfile(bundle / "etdump.etdp", OUT / "tier1_arm.etdp")
        debug = (bundle / "etdump.debug.bin").read_bytes()
        (OUT / "tier1_arm.debug.bin.xz").write_bytes(lzma.compress(debug, preset=9))
    print(f"wrote tier1_arm.etdp and tier1_arm.debug.bin.xz to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

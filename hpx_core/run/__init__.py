"""Running firmware: one runner interface (QEMU here, a probe for silicon), one recorder."""

from hpx_core.run.qemu import QemuRunner, RunOutput, qemu_argv, run_on_qemu
from hpx_core.run.record import RunRecord, judge, run_and_record
from hpx_core.run.runner import Execution, Runner, StreamStoppedError

__all__ = [
    "Execution",
    "QemuRunner",
    "RunOutput",
    "RunRecord",
    "Runner",
    "StreamStoppedError",
    "judge",
    "qemu_argv",
    "run_and_record",
    "run_on_qemu",
]

"""Board runners: QEMU for the emulated boards (a probe runner joins for silicon)."""

from hpx_core.run.qemu import RunOutput, qemu_argv, run_on_qemu

__all__ = ["RunOutput", "qemu_argv", "run_on_qemu"]

"""Energy measured on silicon: a power instrument in lock-step with the firmware.

The firmware drives the board's two power-monitor GPIOs (the pins Ambiq's SDK names for an
external power monitor, ``nsx_power_monitor.c``) with a two-bit state, and the instrument
samples them on its general-purpose inputs beside current and voltage, at full rate. So the
host finds every timed inference (and, in the per-layer pass, every layer) in the trace itself,
without any message from the device during the windows:

- :mod:`.trace`: the streamed samples assembled into one aligned trace (current, voltage, state);
- :mod:`.windows`: the state's windows and the energy integrated over each, the idle floor;
- :mod:`.joulescope`: the instrument, through its maker's driver (``pyjoulescope_driver``, the
  ``hpx-core[power]`` extra).
"""

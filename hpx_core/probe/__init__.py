"""Real boards through a debug probe: probe listing, the route to the part (SEGGER J-Link's
device support through pylink, or pyocd with the part's pack), flashing, the reset handoff,
RTT capture (pyocd and pylink imported lazily so hpx works without them)."""

"""Real boards through a debug probe: probe listing, flashing, RTT capture (pyocd, imported
lazily so hpx works without it)."""

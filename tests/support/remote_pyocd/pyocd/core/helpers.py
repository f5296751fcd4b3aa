"""pyocd.core.helpers: the fake ConnectHelper of the test's bench."""

from pyocd._bench import BENCH

ConnectHelper = BENCH.connect_helper()

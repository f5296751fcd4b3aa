"""pyocd as the exporter host of a farm test sees it: the fake of tests/support/fake_pyocd.py.

hpx's agent on the "exporter host" (a Python started over ssh) imports ``pyocd`` from here: the
same fake the probe tests use, built from the bench the test describes in the JSON file named
by ``HPX_FAKE_PYOCD_BENCH`` (see :mod:`pyocd._bench`). Only tests put this on a path.
"""

__version__ = "0.0+fake"

"""pyocd.flash.file_programmer: the fake FileProgrammer of the test's bench."""

from pyocd._bench import BENCH

FileProgrammer = BENCH.file_programmer()

"""pyocd.core.exceptions: the fake's error classes."""

from fake_pyocd import FakeError as Error
from fake_pyocd import FakeTargetSupportError as TargetSupportError

__all__ = ["Error", "TargetSupportError"]

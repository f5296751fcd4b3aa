"""The one error a device stream raises: what went wrong with it, and where."""

from __future__ import annotations

from typing import Literal

from hpx_core.errors import CaptureError

Problem = Literal["corrupted", "lost", "truncated", "malformed", "version"]

_HINTS: dict[Problem, str] = {
    "corrupted": "a record failed its checksum: check the link (baud rate, noise)",
    "lost": "records are missing: the transport dropped data",
    "truncated": "the stream stopped early: the firmware hung, crashed or timed out",
    "malformed": "the firmware and hpx disagree on the protocol: rebuild the firmware",
    "version": "rebuild the firmware with this version of hpx",
}


class StreamError(CaptureError):
    """The device stream cannot be trusted; ``problem`` says how, ``offset`` where."""

    def __init__(self, problem: Problem, detail: str, offset: int) -> None:
        super().__init__(f"capture {problem} at byte {offset}: {detail}", _HINTS[problem])
        self.problem = problem
        self.offset = offset

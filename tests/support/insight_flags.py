"""A command line with the instruction-profile pass's flags (hpx_insight's ``--estimate-for``,
``--instruction-profile``, ``--calibration``), as ``hpx profile`` hands them on."""

from __future__ import annotations

from typing import Any

from hpx_core.config.command_line import CommandLine

FLAGS = {"instruction_profile": "--instruction-profile", "estimate_for": "--estimate-for",
         "calibration": "--calibration"}


def insight_line(**values: Any) -> CommandLine:
    """``CommandLine(**values)`` with the pass's keys given as its flags would give them."""
    core = {key: value for key, value in values.items() if key not in FLAGS}
    given = tuple((key, str(value) if key == "calibration" else value, FLAGS[key])
                  for key, value in values.items() if key in FLAGS)
    return CommandLine(**core, pass_flags=given)

"""Which debug probes are attached, and which one a run uses."""

from __future__ import annotations

import attrs

from hpx_core.errors import RunError
from hpx_core.probe.pyocd_api import PyocdApi


class NoProbeError(RunError):
    """No debug probe is attached (a profile stops after the build)."""


class ProbeLinkError(RunError):
    """The link to the probe was lost during a run (a remote probe's host or network)."""


@attrs.frozen
class ProbeInfo:
    """A probe as pyocd reports it (J-Link, CMSIS-DAP, ST-Link, ...)."""

    unique_id: str
    description: str
    vendor: str
    product: str


def list_probes(api: PyocdApi) -> tuple[ProbeInfo, ...]:
    """Every attached probe, without waiting for one to appear."""
    try:
        found = api.connect_helper.get_all_connected_probes(blocking=False)
    except api.error as error:
        raise RunError(f"pyocd could not list probes: {error}", "check USB access") from None
    return tuple(
        ProbeInfo(
            str(p.unique_id),
            str(p.description),
            str(getattr(p, "vendor_name", "") or ""),
            str(getattr(p, "product_name", "") or ""),
        )
        for p in found
    )


def _listing(probes: tuple[ProbeInfo, ...]) -> str:
    return "; ".join(f"{p.unique_id} ({p.description})" for p in probes)


def choose_probe(probes: tuple[ProbeInfo, ...], unique_id: str | None) -> ProbeInfo:
    """The probe ``unique_id`` names (exactly, or as the only one containing it), or the
    only attached probe; never a guess between several."""
    if not probes:
        raise NoProbeError(
            "no debug probe is attached",
            "connect the EVB's J-Link USB port (J-Links need the SEGGER J-Link Software; "
            "`hpx doctor` checks), or use `hpx build` to build only",
        )
    if unique_id is not None:
        exact = [p for p in probes if p.unique_id == unique_id]
        partial = [p for p in probes if unique_id.lower() in p.unique_id.lower()]
        chosen = exact or partial
        if len(chosen) == 1:
            return chosen[0]
        what = "matches several probes" if chosen else "matches no attached probe"
        raise RunError(f"--probe {unique_id} {what}", f"attached: {_listing(probes)}")
    if len(probes) > 1:
        raise RunError(
            f"{len(probes)} debug probes are attached and no --probe was given",
            f"choose one with --probe UID: {_listing(probes)}",
        )
    return probes[0]

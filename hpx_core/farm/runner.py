"""The farm runner: firmware runs on a labgrid place, through the same interface as locally.

An emulated board runs under QEMU on the place's exporter host (its ``NetworkService``); a
silicon board is flashed and read over RTT through the place's debug probe (its ``HpxProbe``)
by hpx's own probe runner, whose pyOCD calls run on the exporter host. ``hold()`` keeps the
place for several runs (the pipeline holds it across PMU passes); ``execute`` alone holds it
for one run. Every execution records the place, its exporter and host.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.config.schema import FarmSection
from hpx_core.contract import Json
from hpx_core.errors import FarmError
from hpx_core.farm.client import FarmClient, PlaceState, Resource, coordinator_address, farm_client
from hpx_core.farm.lease import Lease, Notify, log_note
from hpx_core.farm.places import PlaceChoice, resource_for
from hpx_core.farm.remote_qemu import RemoteQemu
from hpx_core.probe.probes import ProbeLinkError, list_probes
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeRunner, ProbeSettings
from hpx_core.run.runner import Execution, StreamStoppedError


@attrs.define
class _Held:
    """What a held place offers for the runs: its lease, resource and labgrid target."""

    lease: Lease
    state: PlaceState
    resource: Resource
    target: Any
    qemu: RemoteQemu | None = None
    probe: Any = None  # the active HpxPyOCDDriver


@attrs.define
class PlaceRunner:
    """Runs firmware for ``board`` on the labgrid place ``place`` (a name, ``any``, or
    ``KEY=VALUE,...``: a free place for the board with those tags, chosen by labgrid)."""

    board: Board
    place: str
    farm: FarmSection = attrs.field(factory=FarmSection)
    timeout: float = 600.0
    notify: Notify = log_note
    probe_settings: ProbeSettings = attrs.field(factory=ProbeSettings)
    _held: _Held | None = attrs.field(default=None, init=False)

    @property
    def address(self) -> str:
        return coordinator_address(self.farm.coordinator)

    def client(self) -> FarmClient:
        return farm_client(self.address)

    def check(self) -> None:
        """The coordinator answers; the place exists and is for this board (``any``: some
        place is)."""
        PlaceChoice.parse(self.place).candidates(self.client(), self.board)

    @contextmanager
    def hold(self) -> Iterator[PlaceState]:
        """Hold the place (waiting while it is busy) until the block ends, however it ends."""
        if self._held is not None:
            yield self._held.state
            return
        from labgrid import Target

        lease = Lease(self.client(), PlaceChoice.parse(self.place), self.board,
                      wait=self.farm.wait, notify=self.notify)
        with lease as state:
            resource = resource_for(state, self.board)
            target = Target(state.name)
            try:
                self._held = self._connect(_Held(lease, state, resource, target))
                self.notify(f"running on place {state.name} (exporter {resource.exporter}, "
                            f"host {resource.host})")
                yield state
            finally:
                self._held = None
                target.cleanup()

    def _connect(self, held: _Held) -> _Held:
        from labgrid import target_factory

        from hpx_core.farm import probe_driver  # registers HpxProbe with labgrid

        entry = held.resource
        made = target_factory.make_resource(held.target, entry.cls, entry.name,
                                            dict(entry.params))
        made.extra = dict(entry.extra)
        if self.board.runner == "qemu":
            held.qemu = RemoteQemu.connect(held.target, entry.params, held.state.name,
                                           self.farm.ssh_key)
        else:
            assert self.board.silicon is not None
            held.probe = probe_driver.activate_probe(held.target, held.state.name,
                                                     self.board.silicon.pyocd_target)
        return held

    def execute(self, elf: Path) -> Execution:
        if self._held is None:
            with self.hold():
                return self.execute(elf)
        held = self._held
        if held.qemu is not None:
            run = held.qemu.execute(self.board, elf, timeout=self.timeout,
                                    trouble=held.lease.trouble)
        else:
            run = self._execute_on_probe(held, elf)
        return _with_place(run, self._record(held))

    def _execute_on_probe(self, held: _Held, elf: Path) -> Execution:
        pack = held.resource.params.get("pack")
        settings = attrs.evolve(self.probe_settings, timeout=self.timeout,
                                packs=(pack,) if pack else ())
        unique_id = str(held.resource.params["unique_id"])
        try:
            api = held.probe.api(guard=held.lease.trouble)
            self._check_attached(api, unique_id, held)
            return ProbeRunner(self.board, settings, unique_id, api).execute(elf)
        except ProbeLinkError as error:  # before the stream began (the stream keeps its own)
            raise StreamStoppedError(error.message, error.hint, b"") from None

    def _check_attached(self, api: PyocdApi, unique_id: str, held: _Held) -> None:
        """The place's probe is there (else the lab's words, not the desk's ``--probe``)."""
        attached = list_probes(api)
        if not any(p.unique_id == unique_id for p in attached):
            listing = ", ".join(f"{p.unique_id} ({p.description})" for p in attached)
            raise FarmError(f"place {held.state.name}: probe {unique_id} is not attached to "
                            f"{held.resource.host}", f"attached there: {listing or 'none'}; "
                            "check its USB cable, or the HpxProbe's unique_id (`pyocd list` "
                            "there)")

    def _record(self, held: _Held) -> dict[str, Json]:
        entry = held.resource
        return {
            "name": held.state.name, "coordinator": self.address,
            "held_by": held.lease.client.identity, "exporter": entry.exporter,
            "host": entry.host, "resource": entry.path, "tags": dict(held.state.tags),
        }


def _with_place(run: Execution, place: dict[str, Json]) -> Execution:
    return attrs.evolve(run, details={**run.details, "place": place},
                        identity={**run.identity, "place": place})


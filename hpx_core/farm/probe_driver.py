"""A debug probe on an exporter host as a labgrid resource, and the driver that runs pyOCD there.

labgrid 26 has no pyOCD driver and its ``USBDebugger`` knows neither CMSIS-DAP probes nor the
probe's unique ID that pyOCD selects it by. So hpx brings its own pair, registered with
labgrid's target factory:

- ``HpxProbe``: ``host`` (the exporter host, usually ``{{ hostname }}`` in the exporter YAML),
  ``unique_id`` (the probe's pyOCD unique ID), ``python`` (the command on that host that runs a
  Python with pyOCD; default ``python3``), ``pack`` (the part's CMSIS pack there; labgrid
  carries only single values, no lists). The exporter offers
  it as it is (labgrid exports classes it does not know as plain resources): the exporter host
  needs no hpx.
- ``HpxPyOCDDriver``: starts labgrid's agent on the host over ssh (labgrid's own connection to
  exporter hosts, :attr:`NetworkResource.command_prefix`) with hpx's pyOCD module
  (:mod:`.probe_agent`) and offers the remote pyOCD (:mod:`.probe_remote`) to hpx's probe
  runner; ``load`` and ``reset`` make it a labgrid bootstrap and reset driver as well.
"""

from __future__ import annotations

import json
import logging
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import attr
from labgrid import target_factory
from labgrid.driver.common import Driver
from labgrid.protocol import BootstrapProtocol, ResetProtocol
from labgrid.resource.common import NetworkResource
from labgrid.util.agentwrapper import AgentWrapper

from hpx_core.errors import FarmError
from hpx_core.farm.address import check_address
from hpx_core.farm.probe_remote import AgentLink, Guard, remote_pyocd
from hpx_core.probe.pyocd_api import PyocdApi

AGENT_MODULE = "probe_agent"  # hpx_core/farm/probe_agent.py, sent to the agent as source
# Reads labgrid's agent source from the first stdin line and runs it: nothing is copied to
# (or left on) the exporter host.
_BOOT = "import sys, json; exec(compile(json.loads(sys.stdin.readline()), 'agent', 'exec'))"


@target_factory.reg_resource
@attr.s(eq=False)
class HpxProbe(NetworkResource):  # type: ignore[misc]
    """A debug probe attached to ``host``, selected by its pyOCD ``unique_id``."""

    unique_id: str = attr.ib(validator=attr.validators.instance_of(str))
    python: str = attr.ib(default="python3", validator=attr.validators.instance_of(str))
    pack: str | None = attr.ib(
        default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))


class ExporterAgent(AgentWrapper):  # type: ignore[misc]
    """labgrid's agent protocol on an exporter host, started through ``command`` (ssh and the
    chosen Python). Only the start differs from labgrid's AgentWrapper; its calls are reused."""

    def __init__(self, command: list[str]) -> None:
        from labgrid.util import agent as agent_source

        self.loaded: dict[str, Any] = {}
        self.logger = logging.getLogger("hpx.farm.agent")
        self.fdpass = None
        self.errors: BinaryIO = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        agent = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=self.errors, start_new_session=True)
        source = Path(agent_source.__file__).read_text(encoding="utf-8")
        assert agent.stdin is not None
        agent.stdin.write(json.dumps(source).encode() + b"\n")
        agent.stdin.flush()
        self.agent: subprocess.Popen[bytes] | None = agent

    def stderr_tail(self) -> str:
        self.errors.seek(0)
        return self.errors.read().decode(errors="replace").strip()[-400:]

    def close(self) -> None:
        agent = self.agent
        self.agent = None
        if agent is not None and agent.stdin is not None:
            try:
                agent.stdin.write(b'{"close": true}\n')
                agent.stdin.flush()
                agent.wait(10.0)
            except (OSError, subprocess.TimeoutExpired):
                agent.kill()
                agent.wait(10.0)
        if not self.errors.closed:
            self.errors.close()


@target_factory.reg_driver
@attr.s(eq=False)
class HpxPyOCDDriver(Driver, BootstrapProtocol, ResetProtocol):  # type: ignore[misc]
    """pyOCD on the probe's host: hpx's probe runner through :meth:`api`, or labgrid's
    ``load`` (flash and reset) and ``reset``."""

    bindings = {"probe": "HpxProbe"}  # noqa: RUF012 - labgrid's class-level declaration
    pyocd_target: str | None = attr.ib(
        default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self._agent: ExporterAgent | None = None

    @property
    def where(self) -> str:
        return f"{self.probe.host} ({self.probe.python})"

    def on_activate(self) -> None:
        python = shlex.split(self.probe.python)
        check_address(self.probe.host, f"the probe {self.probe.unique_id}")
        try:  # opens labgrid's ssh connection to the host
            command = self.probe.wrap_command([*python, "-u", "-c", _BOOT])
        except Exception as error:  # labgrid's ExecutionError and friends
            raise FarmError(f"cannot reach {self.probe.host} over ssh ({error})",
                            "hpx reaches probe hosts with your ssh setup, as labgrid does: "
                            f"check that `ssh {self.probe.host} true` works") from None
        agent = ExporterAgent(command)
        try:
            agent.load(AGENT_MODULE, path=str(Path(__file__).parent))
            AgentLink(agent, AGENT_MODULE, self.where)("version")
        except Exception as error:
            detail = agent.stderr_tail() or str(error)
            agent.close()
            raise FarmError(f"hpx's pyOCD agent does not start on {self.where}: {detail}",
                            "install pyocd there, or set the HpxProbe's python to a command "
                            "that runs a Python with pyocd") from None
        self._agent = agent

    def on_deactivate(self) -> None:
        if self._agent is not None:
            self._agent.close()
            self._agent = None

    def link(self, guard: Guard | None = None) -> AgentLink:
        assert self._agent is not None, "activate the driver first"
        return AgentLink(self._agent, AGENT_MODULE, self.where, guard)

    @Driver.check_active  # type: ignore[untyped-decorator]
    def api(self, guard: Guard | None = None) -> PyocdApi:
        """The remote pyOCD for hpx's probe runner; ``guard`` may stop a run (its cause)."""
        return remote_pyocd(self.link(guard))

    @Driver.check_active  # type: ignore[untyped-decorator]
    def load(self, filename: str) -> None:
        """Flash ``filename`` (an ELF) and reset the target."""
        def flash_and_reset(session: Any) -> None:
            self.api().file_programmer(session).program(filename, file_format="elf")
            session.target.reset()

        self._with_session(flash_and_reset)

    @Driver.check_active  # type: ignore[untyped-decorator]
    def reset(self) -> None:
        self._with_session(lambda session: session.target.reset())

    def _with_session(self, work: Callable[[Any], None]) -> None:
        """``work`` in an open session, closed afterwards. The session is opened here: pyocd's
        ``auto_open`` opens only when a ``with`` block is entered, never on creation."""
        options: dict[str, Any] = {}
        if self.pyocd_target:
            options["target_override"] = self.pyocd_target
        if self.probe.pack:
            options["pack"] = [self.probe.pack]
        api = self.api()
        session = None
        try:
            session = api.connect_helper.session_with_chosen_probe(
                blocking=False, unique_id=self.probe.unique_id, auto_open=False,
                options=options)
            session.open()
            work(session)
        except api.target_support_error as error:
            raise FarmError(f"pyOCD on {self.where} does not know target "
                            f"{self.pyocd_target!r} ({error})",
                            "name the part's CMSIS pack in the HpxProbe's pack") from None
        finally:
            if session is not None:
                session.close()


def activate_probe(target: Any, place: str, pyocd_target: str) -> Any:
    """The active driver for the ``HpxProbe`` in ``target`` (a held place's)."""
    driver = target_factory.make_driver(target, "HpxPyOCDDriver", None,
                                        {"pyocd_target": pyocd_target})
    try:
        target.activate(driver)
    except FarmError as error:
        raise FarmError(f"place {place}: {error.message}", error.hint) from None
    return driver

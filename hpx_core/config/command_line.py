"""What the user set on the command line, as one typed record.

Commands build a :class:`CommandLine` from their options; mypy checks each value's type, and
the record alone knows which config key a flag sets and how the flag is spelled (the origin
``hpx config show`` prints and an error names). A field left None was not given: the config
file's value, or the default, stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from hpx_core.config.pass_keys import SECTION as PASS_SECTION
from hpx_core.errors import UsageError

# Each flag's config key and its spelling (the origin `hpx config show` prints and an error
# names), by the field of CommandLine that holds it.
SETS: dict[str, tuple[str, str]] = {
    "model": ("model.path", "MODEL argument"),
    "model_location": ("model.location", "--model-location"),
    "arena_location": ("model.arena_location", "--arena-location"),
    "engine": ("engine.type", "--engine"),
    "backend": ("engine.backend", "--backend"),
    "board": ("target.board", "--board"),
    "toolchain": ("target.toolchain", "--toolchain"),
    "probe": ("target.probe", "--probe"),
    "clock": ("target.clock", "--clock"),
    "place": ("target.place", "--place"),
    "output_dir": ("output.dir", "--output-dir"),
    "iterations": ("profiling.iterations", "--iterations"),
    "warmup": ("profiling.warmup", "--warmup"),
    "counters": ("profiling.counters", "--counters"),
    "check_layers": ("profiling.check_layers", "--check-layers"),
    "wait": ("farm.wait", "--wait"),
    "ssh_key": ("farm.ssh_key", "--ssh-key"),
    "offline": ("build.offline", "--offline"),
    "work_dir": ("build.work_dir", "--work-dir"),
    "jobs": ("build.jobs", "--jobs"),
    "power": ("power.enabled", "--power"),
    "data": ("validation.data", "--data"),
    "labels": ("validation.labels", "--labels"),
    "limit": ("validation.limit", "--limit"),
}


@attrs.frozen
class CommandLine:
    """The flags of ``hpx profile``, ``hpx build``, ``hpx validate``, ``hpx config show`` and
    ``hpx prepare``."""

    model: Path | None = None
    model_location: str | None = None
    arena_location: str | None = None
    engine: str | None = None
    backend: str | None = None
    board: str | None = None
    toolchain: str | None = None
    probe: str | None = None
    clock: str | None = None
    place: str | None = None
    output_dir: Path | None = None
    iterations: int | None = None
    warmup: int | None = None
    counters: tuple[str, ...] | None = None
    check_layers: str | None = None
    wait: float | None = None
    ssh_key: Path | None = None
    offline: bool | None = None
    work_dir: Path | None = None
    jobs: int | None = None
    power: bool | None = None
    data: Path | None = None
    labels: Path | None = None
    limit: int | None = None
    no_wait: bool = False  # --no-wait: farm.wait 0
    engine_config: tuple[tuple[str, Any], ...] = ()  # --engine-config KEY=VALUE, parsed
    pass_flags: tuple[tuple[str, Any, str], ...] = ()  # an installed pass's: (key, value, flag)

    def overrides(self) -> dict[str, tuple[Any, str]]:
        """Config key -> (value, the flag that set it), for what was given."""
        found = {key: (_plain(getattr(self, name)), flag) for name, (key, flag) in SETS.items()
                 if getattr(self, name) is not None}
        if self.no_wait:
            found["farm.wait"] = (0, "--no-wait")
        for key, value in self.engine_config:
            found[f"engine.config.{key}"] = (value, "--engine-config")
        for key, value, flag in self.pass_flags:
            found[f"{PASS_SECTION}.{key}"] = (_plain(value), flag)
        return found


def _plain(value: Any) -> Any:
    """A value as the YAML document holds one (paths as text, tuples as lists)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def engine_config_values(items: list[str] | None) -> tuple[tuple[str, Any], ...]:
    """``--engine-config KEY=VALUE`` items, each VALUE read as YAML (``true``, ``2048``)."""
    if not items:
        return ()
    from ruamel.yaml import YAML  # only loaded when a value is given

    parsed = []
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--engine-config {item!r} is not KEY=VALUE", "e.g. ns_ops=true")
        parsed.append((key, YAML(typ="safe").load(raw)))
    return tuple(parsed)


def counter_names(text: str | None) -> tuple[str, ...] | None:
    """``--counters A,B`` as names (None: not given)."""
    if text is None:
        return None
    return tuple(name.strip() for name in text.split(",") if name.strip())

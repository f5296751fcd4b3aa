"""What a board adds to a firmware project: its start-up, platform, transport and SDK paths.

Emulated boards use the shared QEMU start-up, CMSDK UART and an exit by reset request. Apollo boards
use hpx's own start-up and RTT transport, laid out for the linker script of the pinned
nsx-ambiq-sdk, whose CMSIS core headers they compile against; the SDK comes through the same
source materialization as engine sources (and the same license check: it drives Apollo
hardware, so only Apollo boards get it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import attrs

from hpx_core.boards.model import Board
from hpx_core.contract import SourceSet
from hpx_core.errors import BuildError

SDK_REPOSITORY = "nsx-ambiq-sdk"
SDK_CORE_INCLUDE = "modules/nsx-cmsis-core/Include"
QEMU_SOURCES = (
    "boards/common/startup.c",
    "boards/common/cmsdk_uart.c",
    "boards/common/reset_exit.c",
)
APOLLO_SOURCES = (
    "boards/apollo/startup_apollo.c",
    "boards/apollo/apollo_init.c",
    "boards/apollo/apollo_platform.c",
)
TRANSPORT_SOURCES = {"rtt": ("transport/rtt/hpx_rtt.c",)}
HP_SOURCE = "boards/apollo/apollo_clock.c"
POWER_SOURCE = "boards/apollo/apollo_power.c"


def _paths(value: tuple[Path, ...] | list[Path]) -> tuple[Path, ...]:
    return tuple(Path(p) for p in value)


@attrs.frozen
class SupportPlan:
    """Template folders copied into ``project/hpx/``, the sources and include folders there
    (relative to ``project/hpx``), and folders outside the project (SDK headers, scripts)."""

    folders: tuple[str, ...] = ()
    sources: tuple[str, ...] = QEMU_SOURCES
    include_dirs: tuple[str, ...] = ()
    external_include_dirs: tuple[Path, ...] = attrs.field(default=(), converter=_paths)
    link_dirs: tuple[Path, ...] = attrs.field(default=(), converter=_paths)
    defines: Mapping[str, str] = attrs.field(factory=dict)
    sdk: SourceSet | None = None
    link_libraries: tuple[Path, ...] = attrs.field(default=(), converter=_paths)


def sdk_root(sources: SourceSet) -> Path:
    """The checkout of the nsx-ambiq-sdk within a materialized source set."""
    for repo in sources.repos:
        if repo.name == SDK_REPOSITORY:
            return Path(repo.path)
    raise BuildError(f"{SDK_REPOSITORY} is not among the board sources", "check the baseline")


def _commit(sources: SourceSet) -> str:
    return next(r.commit for r in sources.repos if r.name == SDK_REPOSITORY)


def _materialize(family: str, offline: bool) -> SourceSet:
    from hpx_core.sources import materialize_board

    return materialize_board(family, offline=offline)


def support_plan(
    board: Board, *, sdk: SourceSet | None = None, offline: bool = False, power: bool = False
) -> SupportPlan:
    """The board support for ``board``; Apollo boards materialize the SDK unless given one.
    ``power``: the power pass drives the board's power GPIOs (the SoC's HAL linked for it)."""
    silicon = board.silicon
    if silicon is None:
        return SupportPlan()
    sources = sdk if sdk is not None else _materialize(silicon.family, offline)
    root = sdk_root(sources)
    script = root / silicon.linker_script
    include = root / SDK_CORE_INCLUDE
    for needed in (script, include / "core_cm55.h", include / "core_cm4.h"):
        if not needed.exists():
            raise BuildError(
                f"the board support for {board.name} lacks {needed.relative_to(root)} in "
                f"{SDK_REPOSITORY}",
                "run `hpx sources fetch` again or `hpx cache clean nsx-ambiq-sdk`",
            )
    transport = TRANSPORT_SOURCES.get(silicon.transport)
    if transport is None:
        raise BuildError(
            f"board {board.name} asks for transport {silicon.transport!r}, which has no template",
            f"known transports: {', '.join(TRANSPORT_SOURCES)}",
        )
    hal = _hp_library(board, root)
    pads = _power_pads(board, root) if power else {}
    return SupportPlan(
        folders=("boards/apollo", f"transport/{silicon.transport}"),
        sources=(*APOLLO_SOURCES, *transport, *((HP_SOURCE,) if hal else ()),
                 *((POWER_SOURCE,) if pads else ())),
        include_dirs=("boards/apollo", f"transport/{silicon.transport}"),
        external_include_dirs=(include,),
        link_dirs=(script.parent,),
        # the SDK's commit is part of the build's inputs (the fingerprint covers CMakeLists)
        defines={"HPX_BOARD_SDK_COMMIT": _commit(sources), "HPX_CLOCK_HP": "1" if hal else "0",
                 **pads},
        sdk=sources,
        link_libraries=hal or ((root / silicon.hal_library,) if pads else ()),
    )


def _power_pads(board: Board, root: Path) -> dict[str, str]:
    """The defines naming the two pads the power pass drives, through the SoC's prebuilt HAL
    (its GPIO functions, as the SDK's own power monitor calls them)."""
    silicon = board.silicon
    assert silicon is not None
    library = root / silicon.hal_library
    if silicon.power_gpios is None or not silicon.hal_library or not library.is_file():
        raise BuildError(f"the board support for {board.name} cannot drive power GPIOs (no "
                         "power pads or no HAL library for it)",
                         "measure energy on a board whose power GPIOs hpx lists (hpx boards)")
    gpio0, gpio1 = silicon.power_gpios
    return {"HPX_POWER_GPIO0": str(gpio0), "HPX_POWER_GPIO1": str(gpio1)}


def _hp_library(board: Board, root: Path) -> tuple[Path, ...]:
    """The SDK's prebuilt HAL when ``board`` runs in the high-performance mode: the mode switch
    and, on the Apollo5 family, SpotManager are the HAL's own (their settings come from trim
    data only it reads), so the firmware calls them rather than copy them."""
    silicon = board.silicon
    if board.clock != "hp" or silicon is None:
        return ()
    library = root / silicon.hal_library
    if not silicon.hal_library or not library.is_file():
        raise BuildError(
            f"the board support for {board.name} in the hp clock mode needs the SDK's HAL "
            f"library{f' {silicon.hal_library}' if silicon.hal_library else ''}, which "
            f"{SDK_REPOSITORY} lacks",
            "run `hpx sources fetch` again, or profile in the lp mode (--clock lp)",
        )
    return (library,)

"""The upstream TFLite Micro source list, derived from the checkout the way its Makefile does.

Upstream has no CMake, and its Makefile cannot list sources offline (it downloads third-party
code first), so hpx reads the checkout: the ``.cc`` files of ``tensorflow/lite/micro`` and its
allocator/planner/bridge folders minus tests, benchmarks and ``debug_log.cc`` (the harness glue
provides DebugLog); the shared ``tensorflow/`` files outside ``lite/micro`` and
``lite/experimental`` minus ``lite/array.cc`` (excluded under TF_LITE_STATIC_MEMORY); and the
kernels named by the Makefile's ``MICROLITE_CC_KERNEL_SRCS``. For ``cmsis_nn`` each kernel with
a same-named file in ``kernels/cmsis_nn/`` is replaced by it (``specialize_files.py``) and the
CMSIS-NN C sources are added (``ext_libs/cmsis_nn.inc``, int8 only: no ``_f16``/``_f32``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import attrs

from hpx_core.sdk import SourceError

MICRO = "tensorflow/lite/micro"
MAKEFILE = f"{MICRO}/tools/make/sources.inc"
MICRO_DIRS = ("", "arena_allocator", "memory_planner", "tflite_bridge")
PRUNED = ("tensorflow/lite/micro", "tensorflow/lite/experimental")
STATIC_MEMORY_EXCLUDED = ("tensorflow/lite/array.cc",)
HARNESS_PROVIDED = (f"{MICRO}/debug_log.cc",)
_VAR = re.compile(r"^([A-Z_]+)\s*:=\s*\\?\n((?:.*\\\n)*.*)", re.MULTILINE)


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class TflmSources:
    """Sources relative to their repository roots, grouped by how upstream optimizes them."""

    core: tuple[str, ...] = attrs.field(converter=_strs)  # tflite-micro, -Os upstream
    kernels: tuple[str, ...] = attrs.field(converter=_strs)  # tflite-micro, -O2
    cmsis_nn: tuple[str, ...] = attrs.field(default=(), converter=_strs)  # CMSIS-NN, -O2

    @property
    def count(self) -> int:
        return len(self.core) + len(self.kernels) + len(self.cmsis_nn)


def makefile_list(makefile_text: str, name: str) -> tuple[str, ...]:
    """The files of a ``NAME := a \\ b \\ ...`` assignment, with ``$(TENSORFLOW_ROOT)`` dropped."""
    for match in _VAR.finditer(makefile_text):
        if match.group(1) == name:
            body = match.group(2).replace("\\\n", " ")
            return tuple(w.replace("$(TENSORFLOW_ROOT)", "") for w in body.split())
    raise SourceError(
        f"the TFLite Micro sources.inc has no {name} list",
        "this tflite-micro checkout is not one hpx can read; use the pinned commit",
    )


def _micro_base(root: Path, excluded: set[str]) -> list[str]:
    found: list[str] = []
    for folder in MICRO_DIRS:
        base = root / MICRO / folder if folder else root / MICRO
        found += [p.relative_to(root).as_posix() for p in sorted(base.glob("*.cc"))]
    return [f for f in found if f not in excluded and not f.endswith("_test.cc")]


def _shared_tflite(root: Path) -> list[str]:
    found: list[str] = []
    for folder, dirs, files in os.walk(root / "tensorflow"):
        rel_dir = Path(folder).relative_to(root).as_posix()
        dirs[:] = sorted(d for d in dirs if f"{rel_dir}/{d}" not in PRUNED)
        for name in sorted(files):
            rel = f"{rel_dir}/{name}"
            if name.endswith((".cc", ".c")) and rel not in STATIC_MEMORY_EXCLUDED:
                found.append(rel)
    return sorted(found)


def _specialize(kernels: Iterable[str], root: Path, folder: str) -> list[str]:
    special = root / MICRO / "kernels" / folder
    names = {p.name for p in special.glob("*.cc")} if special.is_dir() else set()
    return [f"{MICRO}/kernels/{folder}/{Path(k).name}" if Path(k).name in names else k
            for k in kernels]


def cmsis_nn_sources(cmsis_nn_root: Path) -> tuple[str, ...]:
    """CMSIS-NN's C sources, int8/int16 only, as ``cmsis_nn.inc`` selects them."""
    found = [p.relative_to(cmsis_nn_root).as_posix()
             for p in sorted((cmsis_nn_root / "Source").rglob("*.c"))]
    dropped = ("_f16.c", "_f32.c", "/arm_nntables_flt.c")
    return tuple(f for f in found if not f.endswith(dropped))


def derive_sources(root: Path, backend: str, cmsis_nn_root: Path | None = None) -> TflmSources:
    """The library's sources for ``backend`` (``reference`` or ``cmsis_nn``) from a checkout."""
    makefile = root / MAKEFILE
    if not makefile.is_file():
        raise SourceError(
            f"{root} is not a tflite-micro checkout ({MAKEFILE} is missing)",
            "point engine.config.source_path at a tflite-micro checkout, or unset it",
        )
    text = makefile.read_text(encoding="utf-8")
    excluded = set(makefile_list(text, "MICROLITE_TEST_SRCS")) | set(HARNESS_PROVIDED)
    core = _micro_base(root, excluded) + _shared_tflite(root)
    kernels = list(makefile_list(text, "MICROLITE_CC_KERNEL_SRCS"))
    missing = [k for k in kernels if not (root / k).is_file()]
    if missing:
        raise SourceError(f"kernel source {missing[0]} listed by the Makefile is missing",
                          "the tflite-micro checkout is incomplete: `hpx cache clean tflite-micro`")
    extra: tuple[str, ...] = ()
    if backend == "cmsis_nn":
        if cmsis_nn_root is None:
            raise SourceError("backend cmsis_nn needs the CMSIS-NN sources", "materialize CMSIS-NN")
        kernels = _specialize(kernels, root, "cmsis_nn")
        extra = cmsis_nn_sources(cmsis_nn_root)
    return TflmSources(core=core, kernels=kernels, cmsis_nn=extra)

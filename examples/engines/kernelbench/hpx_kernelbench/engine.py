"""The kernelbench engine's steps as typed functions; the hooks in ``plugin.py`` only adapt them.

Order in one profile run: :func:`read_benchmark` (the model stage) -> the core's license check
-> the core materializes the backend's declared pins -> :func:`firmware` (library from the cache,
glue, facts) -> the core builds, runs and captures -> :func:`hpx_kernelbench.results.result_extras`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from hpx_core.sdk import FirmwareContribution, FirmwareRequest, ModelError, ModelRequest, model_view
from hpx_core.sdk.enginelib import library_cmake
from hpx_core.sdk.firmware import get_toolchain
from hpx_core.sdk.models import ModelInfo
from hpx_kernelbench.config import KernelbenchConfig
from hpx_kernelbench.glue import make_glue
from hpx_kernelbench.identity import BACKENDS
from hpx_kernelbench.kernels import KernelList, model_info
from hpx_kernelbench.library import backend_library, include_dirs
from hpx_kernelbench.model import is_kernelbench_file, read_kernels
from hpx_kernelbench.params import benchmark_data
from hpx_kernelbench.reference import host_outputs
from hpx_kernelbench.results import KernelbenchFacts


def read_benchmark(request: ModelRequest) -> ModelInfo | None:
    """The model stage: a kernelbench YAML file as hpx's model analysis, None if not ours."""
    if not is_kernelbench_file(request.path, request.data):
        return None
    kernels = read_kernels(request.path, request.data)
    info = model_info(kernels, len(request.data), request.sha256)
    model_view(info, _read_again, known=kernels)  # later hooks get these, not a second parse
    return info


def kernels_of(model: ModelInfo) -> KernelList:
    """The kernel calls behind a model the model stage read (once per process: read again
    only in a process that did not read it, and then still the file that was analyzed)."""
    return model_view(model, _read_again)


def _read_again(model: ModelInfo) -> KernelList:
    path = Path(model.path)
    try:
        data = path.read_bytes()
    except OSError as error:
        data = b""
        problem = f"cannot read it again: {error.strerror}"
    else:
        problem = "it changed since the model stage read it"
    if hashlib.sha256(data).hexdigest() != model.sha256:
        raise ModelError(f"{path}: {problem}", "keep the kernels file unchanged during a run")
    return read_kernels(path, data)


def firmware(request: FirmwareRequest) -> FirmwareContribution:
    """The backend's library (cached), the glue for this benchmark, and the facts the results
    are checked against."""
    config = request.engine.config_as(KernelbenchConfig)
    backend = request.engine.backend or BACKENDS[0]
    kernels = kernels_of(request.model)
    data = benchmark_data(kernels, config.seed)
    low, high = config.activation_min, config.activation_max
    expected = host_outputs(kernels, data, low, high)[-1]
    glue = make_glue(kernels, data, backend, low, high)
    library = backend_library(request.sources, backend, request.board, request.jobs,
                              get_toolchain(request.toolchain))
    facts = KernelbenchFacts(backend=backend, seed=config.seed, names=kernels.names,
                             library=library.folder.name, library_key=library.key,
                             expected=np.ascontiguousarray(expected).tobytes())
    return FirmwareContribution(
        files=glue.files,
        sources=glue.sources,
        include_dirs=tuple(p.as_posix() for p in include_dirs(request.sources, backend)),
        defines=glue.defines,
        cmake=library_cmake(library),
        fingerprint_inputs={"engine_library": library.key, "model": request.model.sha256,
                            "seed": str(config.seed)},
        buffers=glue.buffers,
        libraries=[library.use()],
        facts=facts,
    )

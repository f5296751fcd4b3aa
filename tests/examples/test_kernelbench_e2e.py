"""kernelbench end to end with the optimized backends (needs the CMSIS-NN, ns-cmsis-nn and
nsx-ambiq-sdk pins: mirrors or network; ``nox -s e2e``).

The kernels repository comes from ``make_kernels_repo.py`` through an ``insteadOf`` rule added
for this process only (``GIT_CONFIG_COUNT``), on top of whatever mirrors git already knows.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from profiles import BUILD_ONLY, outputs_exact, profile_run

from hpx_core.pipeline.memory_pass import NAME as MEMORY
from hpx_core.results.memory import MemoryUse

pytest.importorskip("hpx_kernelbench")

from hpx_kernelbench.model import read_kernels
from hpx_kernelbench.params import benchmark_data
from hpx_kernelbench.reference import host_outputs

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs the toolchain"),
]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "kernelbench"
KERNELS = EXAMPLE / "kernels.yaml"
PINNED_URL = "https://github.com/hpx-examples/kernelbench-kernels"


@pytest.fixture(scope="module", autouse=True)
def kernels_mirror(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    spec = importlib.util.spec_from_file_location("make_kernels_repo",
                                                  EXAMPLE / "make_kernels_repo.py")
    assert spec is not None and spec.loader is not None
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    repo = tmp_path_factory.mktemp("kernels") / "kernelbench-kernels"
    maker.make_repo(repo)
    count = int(os.environ.get("GIT_CONFIG_COUNT", "0"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(f"GIT_CONFIG_KEY_{count}", f"url.{repo.as_uri()}.insteadOf")
        patch.setenv(f"GIT_CONFIG_VALUE_{count}", PINNED_URL)
        patch.setenv("GIT_CONFIG_COUNT", str(count + 1))
        yield


@pytest.mark.emulated
@pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm")
def test_cmsis_nn_computes_what_the_portable_kernels_and_the_host_do(tmp_path: Path) -> None:
    kernels = read_kernels(KERNELS, KERNELS.read_bytes())
    expected = host_outputs(kernels, benchmark_data(kernels, 5), -128, 127)[-1].tobytes()
    outputs = {}
    for backend in ("portable", "cmsis_nn"):
        outcome = profile_run(KERNELS, "kernelbench", "qemu-m55", tmp_path / backend,
                              backend=backend, seed=5)
        assert outcome.capture is not None
        assert outcome.findings and all(f.passed for f in outcome.findings), outcome.findings
        assert outputs_exact(outcome)
        outputs[backend] = outcome.capture.outputs()[0]
        measured = outcome.measurement
        assert measured is not None and [layer.name for layer in measured.layers] == list(
            kernels.names)
    assert outputs["cmsis_nn"] == outputs["portable"] == expected


def test_ns_builds_for_apollo510_with_its_weight_sum_entry_point(tmp_path: Path) -> None:
    outcome = profile_run(KERNELS, "kernelbench", "apollo510_evb", tmp_path, backend="ns",
                          until=BUILD_ONLY)
    assert outcome.stages[-1] == BUILD_ONLY
    checks = {f.check: f for f in outcome.findings}
    assert "ns-cmsis-nn weight-sum entry point linked" in checks
    assert all(f.passed for f in outcome.findings), outcome.findings
    assert outcome.contribution is not None
    assert outcome.contribution.libraries[0].name == "kernelbench_ns"


def test_same_cpu_boards_share_a_library_and_a_moved_cache_compiles_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """qemu-m4 then apollo4p_evb (same CPU flags): one library. The whole hpx cache moved to
    another folder (as a CI cache is restored): profiled again, nothing of it is compiled."""
    first, moved = tmp_path / "first" / "hpx-cache", tmp_path / "restored" / "hpx-cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(first))
    m4 = profile_run(KERNELS, "kernelbench", "qemu-m4", tmp_path / "m4", backend="cmsis_nn",
                     until=BUILD_ONLY)
    apollo = profile_run(KERNELS, "kernelbench", "apollo4p_evb", tmp_path / "apollo",
                         backend="cmsis_nn", until=BUILD_ONLY)
    assert m4.contribution is not None and apollo.contribution is not None
    built, shared = m4.contribution.libraries[0], apollo.contribution.libraries[0]
    assert built.built and built.compiled > 0
    assert not shared.built and shared.key == built.key
    moved.parent.mkdir()
    first.rename(moved)
    monkeypatch.setenv("HPX_CACHE_DIR", str(moved))
    again = profile_run(KERNELS, "kernelbench", "qemu-m4", tmp_path / "again", backend="cmsis_nn",
                        until=BUILD_ONLY)
    assert again.contribution is not None and again.sources is not None
    reused = again.contribution.libraries[0]
    assert not reused.built and reused.compiled == 0 and reused.key == built.key
    assert all(moved in repo.path.parents for repo in again.sources.repos)


@pytest.mark.emulated
@pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm")
def test_each_kernel_call_has_its_stack_and_buffers_and_counts_do_not_move(
        tmp_path: Path) -> None:
    on = profile_run(KERNELS, "kernelbench", "qemu-m55", tmp_path / "on", backend="cmsis_nn",
                     seed=5)
    off = profile_run(KERNELS, "kernelbench", "qemu-m55", tmp_path / "off", backend="cmsis_nn",
                      seed=5, memory=False)
    assert on.record is not None and on.measurement is not None
    use = on.record.result(MEMORY, MemoryUse)
    assert use is not None
    assert [x.index for x in use.layers] == [x.index for x in on.measurement.layers]
    assert all({"activations", "scratch"} <= set(x.uses) for x in use.layers)
    buffers = {b.name: b for b in use.buffers}
    assert buffers["scratch"].used == buffers["scratch"].planned  # what the library asked for
    assert buffers["activations"].used == buffers["activations"].configured
    assert off.measurement is not None and on.measurement.whole == off.measurement.whole
    assert [x.counts for x in on.measurement.layers] == [x.counts for x in off.measurement.layers]

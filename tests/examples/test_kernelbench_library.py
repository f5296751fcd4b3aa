"""Which sources each kernelbench backend fetches and compiles (no build, no network)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("hpx_kernelbench")

from hpx_kernelbench import library

from hpx_core.boards import get_board
from hpx_core.contract import SourceRepo, SourceSet
from hpx_core.plugins import load_registry

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "engines" / "kernelbench" / "kernels"


@pytest.mark.parametrize(("backend", "pins"), [("portable", ["kernelbench-kernels"]),
                                                ("cmsis_nn", ["CMSIS-NN"]),
                                                ("ns", ["ns-cmsis-nn"])])
def test_each_backend_declares_only_its_own_repository(backend: str, pins: list[str]) -> None:
    catalog = load_registry().catalog  # what the core materializes for the chosen backend
    assert [pin.name for pin in catalog.pins_for("kernelbench", backend)] == pins


def _sources(name: str, path: Path) -> SourceSet:
    return SourceSet([SourceRepo(name, "https://example.invalid/x", "0" * 40, path, "MIT")])


@pytest.fixture
def toolchain() -> None:
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("the library key names the compiler's version")


@pytest.mark.usefixtures("toolchain")
def test_portable_compiles_the_pinned_kernels() -> None:
    spec = library.library_spec(_sources("kernelbench-kernels", KERNELS), "portable",
                                get_board("qemu-m55"))
    assert spec.name == "kernelbench_portable"
    assert sorted(Path(f).name for f in spec.groups[0].files) == [
        "kb_conv2d_s8.c", "kb_fully_connected_s8.c", "kb_requantize.c"]
    assert spec.include_dirs == ((KERNELS / "include").as_posix(),)
    assert spec.identity["pin:kernelbench-kernels"] == "0" * 40
    assert "-mcpu=cortex-m55" in spec.cpu_flags


@pytest.mark.usefixtures("toolchain")
def test_cmsis_nn_compiles_int8_files_of_three_folders(tmp_path: Path) -> None:
    for rel in ("ConvolutionFunctions/arm_convolve_s8.c",
                "ConvolutionFunctions/arm_convolve_s8_f32.c",
                "FullyConnectedFunctions/arm_fully_connected_s8.c",
                "NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c",
                "SoftmaxFunctions/arm_softmax_s8.c"):
        (tmp_path / "Source" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "Source" / rel).write_text("")
    spec = library.library_spec(_sources("CMSIS-NN", tmp_path), "cmsis_nn", get_board("qemu-m4"))
    assert sorted(Path(f).name for f in spec.groups[0].files) == [
        "arm_convolve_s8.c", "arm_fully_connected_s8.c", "arm_nn_mat_mult_nt_t_s8.c"]
    assert spec.defines == {"ARM_NN_ENABLE_F16": "0", "ARM_NN_ENABLE_F32": "0"}
    assert spec.include_dirs == ((tmp_path / "Include").as_posix(), tmp_path.as_posix())

"""Work folders are named by what shapes the firmware, not by where the results go."""

from __future__ import annotations

from pathlib import Path

import pytest
from filelock import FileLock, Timeout
from loops_engine import loops_registry

from hpx_core.boards import get_board
from hpx_core.config.validate import overrides, validate_config
from hpx_core.models import load_model
from hpx_core.pipeline.state import RunState
from hpx_core.pipeline.workdir import claim_work_folder, work_key

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
AD01 = REPO / "examples/models/mlperf_tiny/ad01_int8.tflite"


def _state(model: Path = KWS, **values: object) -> RunState:
    settings = {"engine__type": "loops", "target__board": "qemu-m55", "model__path": str(model),
                **values}
    registry = loops_registry()
    state = RunState(validate_config(None, overrides("test", **settings), registry), registry)
    state.model, state.board = load_model(model), get_board("qemu-m55")
    return state


def test_the_key_follows_the_inputs_not_the_outputs() -> None:
    key = work_key(_state())
    assert work_key(_state(output__dir="elsewhere", build__jobs=1)) == key
    assert work_key(_state(profiling__iterations=7)) != key
    assert work_key(_state(engine__backend="nops")) != key
    assert work_key(_state(engine__config={"scale": 5})) != key
    assert work_key(_state(AD01)) != key


def test_the_folder_sits_in_the_work_root_and_is_locked_for_the_run(tmp_path: Path) -> None:
    state = _state(output__dir=str(tmp_path / "results"))
    folder = claim_work_folder(state)
    assert folder.parent == tmp_path / "hpx-work"
    assert folder.name == f"kws_ref_model-loops-plain-qemu-m55-{work_key(state)[:12]}"
    lock = folder.with_name(f".{folder.name}.lock")
    other = _state(output__dir=str(tmp_path / "other"))
    with pytest.raises(Timeout):
        FileLock(str(lock)).acquire(timeout=0)
    state.resources.close()
    assert claim_work_folder(other) == folder  # same inputs, same folder, once released
    other.resources.close()
    custom = _state(output__dir=str(tmp_path / "r"), build__work_dir=str(tmp_path / "w"))
    assert claim_work_folder(custom).parent == tmp_path / "w"
    custom.resources.close()

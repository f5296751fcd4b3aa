"""The engine's own code enters a run's identity with nothing from the engine: a package that
ships C differing by one line gives another digest, and ``hpx compare`` shows it.

The digest is checked on copies of the loops test engine's package, then in real runs of two
such copies on qemu-m55 whose library source differs by one line.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from emulated_firmware import require_tools
from loops_engine import PACKAGE_ROOT, loops_paths

from hpx_core.cli import main
from hpx_core.pipeline.engine_code import engine_code
from hpx_core.plugins import default_registry
from hpx_core.results.view import load_view

KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")
PACKAGE = "hpx_loops_engine"
GLUE = {"engine.c": "int x;\n"}


def _copy(into: Path, marker: str | None = None) -> Path:
    """A copy of the loops engine's package folder under ``into`` (its library's C source
    replaced by ``marker`` when given); the folder to put on ``sys.path``."""
    shutil.copytree(PACKAGE_ROOT / PACKAGE, into / PACKAGE,
                    ignore=shutil.ignore_patterns("__pycache__"))
    if marker is not None:
        (into / PACKAGE / "marker.c").write_text(marker, encoding="utf-8")
    return into


@contextlib.contextmanager
def _imported(root: Path) -> Iterator[ModuleType]:
    """The plugin module of the copy under ``root``; the process's own copy is back after."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            patch.delitem(sys.modules, name)
        patch.syspath_prepend(str(root))
        yield importlib.import_module(f"{PACKAGE}.plugin")
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
            patch.delitem(sys.modules, name)


def _digest(root: Path, glue: dict[str, str] = GLUE) -> str:
    with _imported(root) as module:
        assert Path(module.__file__ or "").is_relative_to(root)
        return engine_code(module, glue).sha256


ONE_LINE = "/* another kernel */\nint hpx_loops_marker(void) { return 8; }\n"


def test_one_line_of_shipped_c_changes_the_digest_and_bytecode_does_not(
        tmp_path: Path) -> None:
    same = _digest(_copy(tmp_path / "a"))
    assert _digest(_copy(tmp_path / "b")) == same  # the same files elsewhere: the same code
    cache = tmp_path / "b" / PACKAGE / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "plugin.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "b" / PACKAGE / "glue.pyc").write_bytes(b"\0")
    assert _digest(tmp_path / "b") == same
    assert _digest(_copy(tmp_path / "c", ONE_LINE)) != same


def test_the_glue_the_contribution_adds_is_part_of_it(tmp_path: Path) -> None:
    root = _copy(tmp_path / "a")
    with _imported(root) as module:
        code = engine_code(module, GLUE)
        other = engine_code(module, {"engine.c": "int y;\n"})
    assert code.sha256 != other.sha256
    assert code.package == PACKAGE and code.glue_files == ("engine.c",)
    assert code.package_files == sum(1 for p in (root / PACKAGE).rglob("*")
                                     if p.is_file() and "__pycache__" not in p.parts)


@pytest.mark.emulated
def test_two_runs_of_kernels_that_differ_by_one_line_differ_in_identity(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_tools()
    bundles = []
    for name, marker in (("one", None), ("other", ONE_LINE)):
        root = _copy(tmp_path / name, marker)
        with _imported(root), pytest.MonkeyPatch.context() as patch:
            _, site = loops_paths(tmp_path / f"site-{name}")
            patch.syspath_prepend(str(site))
            default_registry(reload=True)
            out = tmp_path / f"out-{name}"
            with contextlib.redirect_stdout(io.StringIO()):
                code = main(["profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                             "--iterations", "1", "--output-dir", str(out)])
            assert code == 0
            (bundle,) = (p for p in out.iterdir() if p.is_dir())
            bundles.append(bundle)
    default_registry(reload=True)
    one, other = (load_view(b) for b in bundles)
    assert one.engine_code and other.engine_code and one.engine_code != other.engine_code
    provenance = json.loads((bundles[0] / "provenance.json").read_text("utf-8"))
    assert provenance["engine_code"]["sha256"] == one.engine_code
    assert provenance["engine_code"]["package"] == PACKAGE
    capsys.readouterr()
    assert main(["compare", str(bundles[0]), str(bundles[1])]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert re.search(rf"engine code\W+sha256:{one.engine_code[:16]}\W+"
                     rf"sha256:{other.engine_code[:16]}", out), out

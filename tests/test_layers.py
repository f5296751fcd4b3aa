"""The core's layering holds and engine plugins import only the SDK: import-linter's contracts
(pyproject.toml) are kept, and an import that climbs a layer, or a plugin's import of a core
package other than hpx_core.sdk, breaks them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"]
SDK_CONTRACT = "engine and pass plugins import hpx_core.sdk only"
# Engine packages a development venv does not install (the test engines would join every
# registry; the tinyseq example is installed in a venv of its own by its test): lint-imports
# finds them on PYTHONPATH.
NOT_INSTALLED = {
    "hpx_tinyseq": REPO / "examples" / "engines" / "tinyseq",
    "hpx_loops_engine": REPO / "tests" / "fixtures" / "plugins" / "hpx_loops_engine",
    "hpx_broken_engine": REPO / "tests" / "fixtures" / "plugins" / "hpx_broken_engine",
    "hpx_sample_pass": REPO / "tests" / "fixtures" / "plugins" / "hpx_sample_pass",
}


def _lint_imports(cwd: Path, env: dict[str, str] | None = None, config: Path | None = None
                  ) -> subprocess.CompletedProcess[str]:
    tool = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(tool), "--no-cache", *([str(config)] if config else [])],
                          cwd=cwd, capture_output=True, text=True, check=False, timeout=300,
                          env=env)


def _contract(name: str) -> dict[str, Any]:
    return next(c for c in CONFIG["contracts"] if c["name"] == name)


def _sdk_config(path: Path, plugins: list[str]) -> Path:
    """A config of the SDK contract alone, over the core and ``plugins``."""
    contract = {**_contract(SDK_CONTRACT), "source_modules": plugins}
    lines = ["[tool.importlinter]", f"root_packages = {json.dumps(['hpx_core', *plugins])}",
             "exclude_type_checking_imports = false", "", "[[tool.importlinter.contracts]]",
             *(f"{key} = {json.dumps(value)}" for key, value in contract.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _with_path(*folders: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, folders))}


def test_the_contracts_are_kept() -> None:
    done = _lint_imports(REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    for contract in CONFIG["contracts"]:
        assert f"{contract['name']} KEPT" in done.stdout


def test_an_import_that_climbs_breaks_it(tmp_path: Path) -> None:
    """A copy of the core where the wire protocol (a bottom layer) imports the pipeline, and
    the engine kit imports the runners."""
    copy = tmp_path / "hpx_core"
    shutil.copytree(REPO / "hpx_core", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (copy / "wire" / "climb.py").write_text("from hpx_core.pipeline import profile\n")
    (copy / "sdk" / "enginelib" / "climb.py").write_text("from hpx_core import runners\n")
    done = _lint_imports(tmp_path, {"PYTHONPATH": str(tmp_path), "PATH": ""})
    assert done.returncode == 1, done.stdout[-2000:]
    assert "hpx_core layers BROKEN" in done.stdout
    assert "hpx_core.wire.climb -> hpx_core.pipeline" in done.stdout
    assert "the engine kit builds on the firmware layer BROKEN" in done.stdout
    assert "hpx_core.sdk.enginelib.climb -> hpx_core.runners" in done.stdout


def test_the_sdk_contract_forbids_every_core_package_but_the_sdk() -> None:
    """A package added to the core is an internal until the SDK re-exports what it offers."""
    core = {path.stem for path in (REPO / "hpx_core").iterdir()
            if (path.suffix == ".py" and path.stem != "__init__")
            or (path / "__init__.py").is_file()}
    assert "sdk" in core and "contract" in core
    forbidden = set(_contract(SDK_CONTRACT)["forbidden_modules"])
    assert forbidden == {f"hpx_core.{name}" for name in core - {"sdk"}}


def test_the_sdk_contract_covers_every_engine_package() -> None:
    found = {init.parent.name for pattern in ("plugins/*/hpx_*/__init__.py",
                                              "examples/engines/*/hpx_*/__init__.py",
                                              "tests/fixtures/plugins/*/hpx_*/__init__.py")
             for init in REPO.glob(pattern)}
    installed = set(_contract(SDK_CONTRACT)["source_modules"])
    assert installed == set(CONFIG["root_packages"]) - {"hpx_core"}
    assert found == installed | set(NOT_INSTALLED)


def test_the_engines_not_installed_import_only_the_sdk(tmp_path: Path) -> None:
    plugins = [*_contract(SDK_CONTRACT)["source_modules"], *NOT_INSTALLED]
    config = _sdk_config(tmp_path / "pyproject.toml", plugins)
    done = _lint_imports(REPO, _with_path(*NOT_INSTALLED.values()), config)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{SDK_CONTRACT} KEPT" in done.stdout


def test_a_plugin_that_imports_a_core_package_breaks_it(tmp_path: Path) -> None:
    """An engine importing the memory plan's placement module (a core internal) besides the
    SDK: the first import is named, the SDK's is not."""
    package = tmp_path / "site" / "hpx_reaching"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text("from hpx_core.sdk import hookimpl\n"
                                       "from hpx_core.sdk.enginelib import cmake_quote\n"
                                       "from hpx_core.firmware.placement import ARENA_USES\n")
    config = _sdk_config(tmp_path / "pyproject.toml", ["hpx_reaching"])
    done = _lint_imports(REPO, _with_path(tmp_path / "site"), config)
    assert done.returncode == 1, done.stdout[-2000:]
    assert f"{SDK_CONTRACT} BROKEN" in done.stdout
    assert "hpx_reaching.plugin -> hpx_core.firmware.placement (l.3)" in done.stdout
    assert "hpx_reaching.plugin -> hpx_core.sdk" not in done.stdout

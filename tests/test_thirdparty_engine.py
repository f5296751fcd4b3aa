"""A third-party engine installed with pip into a fresh venv is a first-class engine.

The venv holds hpx-core, the kernelbench example engine (examples/engines/kernelbench) and a
plugin that fails at import, each installed from its own pyproject.toml the way a user installs
them; none of the engines that ship with hpx. kernelbench's pinned repository is made by its
``make_kernels_repo.py`` and reached through a git ``insteadOf`` rule in a private global git
config, with a private hpx cache: nothing of this machine's git or hpx setup is read or
changed, and nothing is fetched from the network.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "engines" / "kernelbench"
KERNELS = EXAMPLE / "kernels.yaml"
BROKEN = REPO / "tests" / "fixtures" / "plugins" / "hpx_broken_engine"
PINNED_URL = "https://github.com/hpx-examples/kernelbench-kernels"
FIRST_PARTY = ("tflm", "helia-rt", "helia-aot", "executorch")
EMULATION_TOOLS = ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")


@attrs.frozen
class Install:
    """The venv, where things go, and the environment every ``hpx`` call gets."""

    venv: Path
    root: Path
    env: dict[str, str]

    def hpx(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.venv / "bin" / "hpx"), *args], capture_output=True,
                              text=True, cwd=self.root, env=self.env | env, check=False)

    def pip(self, *args: str) -> None:
        subprocess.run([str(self.venv / "bin" / "python"), "-m", "pip", "-q", *args],
                       check=True, env=self.env)


def _make_kernels_repo(dest: Path) -> str:
    spec = importlib.util.spec_from_file_location("make_kernels_repo",
                                                  EXAMPLE / "make_kernels_repo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    commit: str = module.make_repo(dest)
    return commit


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    root = tmp_path_factory.mktemp("thirdparty")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    mirror = root / "kernelbench-kernels"
    _make_kernels_repo(mirror)
    gitconfig = root / "gitconfig"
    gitconfig.write_text(f'[url "{mirror.as_uri()}"]\n\tinsteadOf = {PINNED_URL}\n')
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_CONFIG", "HPX_"))}  # no rule or plugin choice leaks in
    env |= {"GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1",
            "HPX_CACHE_DIR": str(root / "cache"), "COLUMNS": "200"}
    made = Install(venv, root, env)
    made.pip("install", str(REPO), str(EXAMPLE), str(BROKEN))
    return made


def test_kernelbench_is_listed_and_the_broken_plugin_skipped(install: Install) -> None:
    listing = install.hpx("plugins", "--json")
    assert listing.returncode == 0, listing.stderr
    report = json.loads(listing.stdout)
    engines = {row["engine"]: row for row in report["engines"]}
    assert set(engines) == {"kernelbench"}  # no first-party engine is installed here
    assert engines["kernelbench"]["distribution"] == "hpx-kernelbench"
    assert engines["kernelbench"]["backends"] == ["portable", "cmsis_nn", "ns"]
    assert [f["plugin"]["name"] for f in report["failures"]] == ["broken"]
    text = install.hpx("plugins")
    said = text.stdout + text.stderr
    assert said.count("skipped plugin broken") == 1 and "skipped plugin broken" in text.stdout
    other = install.hpx("boards")  # any other command says it once too, on stderr
    assert other.stderr.count("skipped plugin broken") == 1 and "broken" not in other.stdout
    assert "needs a library that is not installed" in text.stdout
    assert not any(name in text.stdout for name in ("tflm", "helia", "executorch"))
    assert "Traceback" not in listing.stderr + text.stdout + text.stderr


def test_engine_config_is_checked_with_file_and_line(install: Install, tmp_path: Path) -> None:
    config = tmp_path / "hpx.yaml"
    config.write_text("engine:\n  type: kernelbench\n  config:\n    sed: 3\n")
    typo = install.hpx("config", "validate", str(config))
    assert typo.returncode == 2 and "did you mean 'seed'" in typo.stderr
    config.write_text("engine:\n  type: kernelbench\n  config:\n"
                      "    activation_min: 10\n    activation_max: -10\n")
    crossed = install.hpx("config", "validate", str(config))
    assert crossed.returncode == 2
    assert f"{config}:4:21: engine.config.activation_min: " in crossed.stderr
    assert "above activation_max (-10)" in crossed.stderr and "Traceback" not in crossed.stderr


def test_sources_list_shows_who_declared_the_kernels(install: Install) -> None:
    listing = install.hpx("sources", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    rows = {row["name"]: row for row in json.loads(listing.stdout)["repositories"]}
    kernels = rows["kernelbench-kernels"]
    assert kernels["declared_by"] == "hpx-kernelbench" and kernels["url"] == PINNED_URL
    assert "kernelbench/portable" in kernels["used_by"]
    assert rows["CMSIS-NN"]["declared_by"] == "hpx-core"


@pytest.fixture
def emulation() -> None:
    missing = [tool for tool in EMULATION_TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")


def _bundle(out: Path) -> Path:
    (bundle,) = out.iterdir()
    return bundle


@pytest.mark.emulated
@pytest.mark.usefixtures("emulation")
def test_profile_verify_and_compare_end_to_end(install: Install) -> None:
    bundles = []
    for run in ("base", "candidate"):
        out = install.root / f"results-{run}"
        done = install.hpx("profile", str(KERNELS), "--engine", "kernelbench", "--board",
                           "qemu-m55", "--output-dir", str(out))
        assert done.returncode == 0, done.stderr
        for layer in ("conv3x3", "conv3x3_s2", "pointwise", "classifier"):
            assert layer in done.stdout
        bundles.append(_bundle(out))
    summary = json.loads((bundles[0] / "summary.json").read_text())
    assert summary["outputs"]["exact"] is True
    assert install.hpx("results", "verify", str(bundles[0])).returncode == 0
    compared = install.hpx("compare", *map(str, bundles))
    assert compared.returncode == 0, compared.stdout + compared.stderr


def test_ns_is_refused_on_an_arm_cpu_before_any_fetch(install: Install) -> None:
    cache = install.root / "untouched-cache"
    refused = install.hpx("profile", str(KERNELS), "--engine", "kernelbench", "--backend", "ns",
                          "--board", "qemu-m55", "--output-dir",
                          str(install.root / "results-ns"), HPX_CACHE_DIR=str(cache))
    assert refused.returncode == 2
    assert "LicenseRef-Ambiq-Apollo-SDK" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not cache.exists()


@pytest.mark.emulated
@pytest.mark.usefixtures("emulation")
def test_the_example_config_runs(install: Install) -> None:
    done = install.hpx("profile", "-c", str(EXAMPLE / "hpx.yaml"), "--board", "qemu-m55",
                       "--output-dir", str(install.root / "results-config"))
    assert done.returncode == 0, done.stderr
    summary = json.loads((_bundle(install.root / "results-config") / "summary.json").read_text())
    assert summary["extra"]["seed"] == 7 and summary["outputs"]["exact"] is True


def test_uninstalled_engine_disappears(install: Install) -> None:
    install.pip("uninstall", "-y", "hpx-kernelbench")
    try:
        refused = install.hpx("profile", str(KERNELS), "--engine", "kernelbench")
        assert refused.returncode == 2
        assert "unknown engine 'kernelbench'" in refused.stderr
    finally:
        install.pip("install", str(EXAMPLE))

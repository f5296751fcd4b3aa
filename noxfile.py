"""Sessions: tests, lint, typecheck, e2e (needs pinned engine sources)."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True

PLUGINS = [
    "plugins/hpx_tflm_family",
    "plugins/hpx_tflm",
    "plugins/hpx_heliart",
    "plugins/hpx_heliaaot",
    "plugins/hpx_executorch",
    "plugins/hpx_insight",
]
EXAMPLES = ["examples/engines/kernelbench"]
CODE = ["hpx_core", "plugins", "examples", "tests", "noxfile.py", "benchmarks", "tools"]


def install_hpx(session: nox.Session) -> None:
    """The core with its dev extras, the four engine plugins and the example engine, editable."""
    session.install("-e", ".[dev]", *(arg for p in [*PLUGINS, *EXAMPLES] for arg in ("-e", p)))


@nox.session
def tests(session: nox.Session) -> None:
    """Unit, contract and emulated end-to-end tests (no engine sources, no hardware)."""
    install_hpx(session)
    session.run("pytest", "-m", "not e2e and not hardware", *session.posargs, success_codes=[0, 5])


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", *CODE)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over the core, the plugins and the example engine."""
    install_hpx(session)
    session.run("mypy", "hpx_core", *(f"{p}/{p.split('/')[1]}" for p in PLUGINS), "examples")


@nox.session
def e2e(session: nox.Session) -> None:
    """Tests that need the pinned engine sources (git mirrors or network)."""
    install_hpx(session)
    session.run("pytest", "-m", "e2e", *session.posargs, success_codes=[0, 5])


@nox.session
def fuzz(session: nox.Session) -> None:
    """Coverage-guided fuzzing (atheris) of the model readers, the sidecar, the config loader
    and the wire parser: 1,000,000 inputs each, at most 10 s per input and 1 h per target.

    Findings land in tests/fixtures/fuzz/<target>/, which the tests session replays. Posargs go
    to tests/fuzz/run_atheris.py (e.g. ``nox -s fuzz -- wire --runs 10000``).
    """
    session.install("-e", ".[dev,fuzz]", *(arg for p in PLUGINS for arg in ("-e", p)))
    session.run("python", "tests/fuzz/run_atheris.py", *session.posargs)


@nox.session(python="3.11")
def export(session: nox.Session) -> None:
    """Re-export the .pte test fixtures with the stock exporter (torch + executorch, ~1.7 GB),
    then prove ExecuTorch's Inspector reads the ETDump of a real qemu-m55 run."""
    session.install("-r", "tools/export/pte_fixtures/requirements.txt")
    session.run("python", "tools/export/pte_fixtures/export_pte_fixtures.py", *session.posargs)
    # The Tier-1 programs for the pinned runtime (ExecuTorch 1.3) need a venv of their own.
    install_hpx(session)
    session.run("python", "tools/export/executorch_tier1/run_export.py")
    # In that venv, ExecuTorch's Inspector reads the ETDump of a qemu-m55 run of tier1_arm.
    session.run("python", "tools/export/executorch_tier1/etdump_proof.py")

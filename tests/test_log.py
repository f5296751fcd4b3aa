"""A logger loads structlog only for a line that passes the level, and sets it up first."""

from __future__ import annotations

import json
import subprocess
import sys

PROGRAM = """
import json, logging, sys
from hpx_core.log import get_logger, set_level

calls = []

def setup():
    import structlog
    calls.append("setup")
    structlog.configure(processors=[structlog.processors.JSONRenderer()],
                        logger_factory=structlog.PrintLoggerFactory(sys.stderr))

log = get_logger("demo")
set_level(logging.WARNING, setup)
log.info("dropped", n=1)
log.debug("dropped too")
seen = {"after_info": "structlog" in sys.modules, "setup_calls": list(calls)}
log.warning("written", n=2)
log.error("written too")
seen |= {"after_warning": "structlog" in sys.modules, "setup_calls_after": list(calls)}
print(json.dumps(seen))
"""


def test_only_lines_at_the_level_load_structlog_and_its_setup_runs_once() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          check=True)
    seen = json.loads(done.stdout)
    assert seen == {"after_info": False, "setup_calls": [], "after_warning": True,
                    "setup_calls_after": ["setup"]}
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert lines == [{"n": 2, "event": "written"}, {"event": "written too"}]


def test_the_cli_logs_info_lines_only_when_verbose() -> None:
    code = ("import sys; from hpx_core.cli.logs import configure_logging; "
            "from hpx_core.log import get_logger; configure_logging(verbosity=int(sys.argv[1])); "
            "get_logger('demo').info('stage', name='config')")
    quiet, verbose = (subprocess.run([sys.executable, "-c", code, level], capture_output=True,
                                     text=True, check=True) for level in ("0", "1"))
    assert quiet.stderr == "" and quiet.stdout == ""
    assert "stage" in verbose.stderr and "name=config" in verbose.stderr

"""Running the C++ programs the tests compile against the twin."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

# Settings of the twin a test must not inherit from the shell that runs pytest.
TWIN_ENVIRONMENT = ("OPGEN_SOC", "OPGEN_TWIN_ON_ERROR", "OPGEN_TWIN_TRACE")
CHECK_EXIT_CODE = 3  # a program stopped by one of the twin's checks
FAILURE_LINE = re.compile(
    r"^opgen-twin: error: (?P<check>[A-Z_]+): kernel=(?P<kernel>\S+) core=(?P<core>\S+) api=(?P<api>\S+)"
    r"(?: (?P<details>.*))?$"
)


def clean_env(**overrides: str) -> dict[str, str]:
    """This process's environment without the twin's settings, plus `overrides`."""
    env = {k: v for k, v in os.environ.items() if k not in TWIN_ENVIRONMENT}
    env.update(overrides)
    return env


def run_program(
    program: Path, *args: str, check: bool = False, timeout: float = 60, **env: str
) -> subprocess.CompletedProcess:
    """Runs `program args` in a clean environment (plus `env`, e.g. OPGEN_SOC="ascend950"); with `check`, a
    nonzero exit fails the test with the program's stderr."""
    result = subprocess.run(
        [str(program), *args], capture_output=True, text=True, env=clean_env(**env), timeout=timeout
    )
    assert not check or result.returncode == 0, result.stderr
    return result


def twin_failure(program: Path, case: str, **env: str) -> dict[str, str]:
    """Runs `program case`, which one of the twin's checks must stop: the fields of the one line it prints
    (check, kernel, core, api, details)."""
    result = run_program(program, case, **env)
    assert result.returncode == CHECK_EXIT_CODE, (case, result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    match = FAILURE_LINE.match(lines[0])
    assert match, lines[0]
    return match.groupdict()

"""The kernel-extension tests do not depend on the virtualenv of the shell that starts them:
with another one active (VIRTUAL_ENV naming it), `make test-fast` passes as it does without."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes  # it starts make and pytest

ROOT = Path(__file__).resolve().parents[2]


def test_another_active_virtualenv_changes_nothing(tmp_path: Path) -> None:
    other = tmp_path / "other-venv"
    (other / "bin").mkdir(parents=True)
    env = {**os.environ, "VIRTUAL_ENV": str(other), "PATH": f"{other / 'bin'}:{os.environ['PATH']}"}
    # make's own settings reach the commands it runs: the variable it hands them, printed.
    shown = subprocess.run(
        ["make", "-s", "--no-print-directory", "-f", "-", "show"],
        input=f"include {ROOT / 'Makefile'}\nshow:\n\t@echo $$VIRTUAL_ENV\n",
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=60, check=True,
    )  # fmt: skip
    assert shown.stdout.strip() == str(ROOT / ".venv")
    # And pytest started by hand from that shell: the tests run in their own interpreter.
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/kernel_ext/test_magics.py", "-k", "defines_a_tool_with_progress"],
        capture_output=True, text=True, cwd=ROOT, timeout=300, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr

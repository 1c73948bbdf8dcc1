"""`make lab` passes JupyterLab's own options through, as the README says."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes  # it starts make

ROOT = Path(__file__).resolve().parents[1]


def test_make_lab_takes_a_port_a_token_and_no_browser() -> None:
    args = "--port 9000 --no-browser --IdentityProvider.token=secret"
    planned = subprocess.run(
        ["make", "-n", "--no-print-directory", "lab", f"LAB_ARGS={args}"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=True,
    )  # fmt: skip
    command = " ".join(planned.stdout.replace("\\\n", " ").split())
    assert "jupyter lab" in command
    assert command.endswith(args)
    # The repository is the root (a lesson's ../docs/guides/ links open), opened on notebooks/.
    assert f'--ServerApp.root_dir="{ROOT}"' in command
    assert "--ContentsManager.preferred_dir=notebooks" in command
    readme = (ROOT / "README.md").read_text()
    assert 'make lab LAB_ARGS="--port 9000 --no-browser' in readme

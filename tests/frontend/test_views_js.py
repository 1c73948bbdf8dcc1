"""The views' JavaScript unit tests (`threadlab.test.mjs`), run with Node's own test runner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ..helpers import missing_package

pytestmark = pytest.mark.processes  # it starts Node.js

ROOT = Path(__file__).resolve().parents[2]


def test_the_views_javascript_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        missing_package("nodejs: the views' JavaScript tests run on Node.js")
    if not (ROOT / ".cache" / "npm" / "node_modules" / "jsdom").is_dir():
        missing_package("jsdom in .cache/npm: run `make npm-packages`")
    # ESM detection lets Node load the views' file as the module it is (it ships without a
    # package.json of its own: anywidget and the extension load it as a module).
    result = subprocess.run(
        [node, "--experimental-detect-module", "--test", "tests/frontend/"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout
    assert "# pass 5" in result.stdout

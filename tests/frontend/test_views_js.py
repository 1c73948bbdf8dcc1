"""The views' JavaScript unit tests (`tests/frontend/*.test.mjs`, one file per view module),
run with Node's own test runner and jsdom."""

from __future__ import annotations

import re
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
    counts = dict(re.findall(r"^# (tests|pass|fail) (\d+)$", result.stdout, re.M))
    assert counts["fail"] == "0"
    assert counts["pass"] == counts["tests"]
    # Each test file names the module it tests (one file per module; the three widget entry
    # modules share one), and every module has one.
    assert int(counts["tests"]) >= 2 * len(MODULES)


MODULES = sorted(
    p.stem
    for p in (ROOT / "src" / "threadlab" / "widgets" / "js").glob("*.js")
    if p.stem != "types"  # declarations only
)
ENTRIES = {"views", "kinds", "thread_view"}  # one widget entry, its table, a thread's drawing


def test_every_view_module_has_its_unit_tests() -> None:
    tested = {
        p.name.removesuffix(".test.mjs") for p in (ROOT / "tests" / "frontend").glob("*.test.mjs")
    }
    untested = [m for m in MODULES if m not in tested and m not in ENTRIES]
    assert untested == []
    entries = (ROOT / "tests" / "frontend" / "widget_entries.test.mjs").read_text()
    assert all(f"{m}.js" in entries for m in ENTRIES)

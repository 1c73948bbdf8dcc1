"""`import threadlab` (and what `%load_ext threadlab` imports) leaves what is slow to import
until it is first needed: jsonschema (seconds with the optional format packages a notebook
server installs), nbformat (which imports it) and the price tables."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.processes  # it starts a fresh interpreter per import

HEAVY = ("jsonschema", "nbformat", "genai_prices")


@pytest.mark.parametrize("module", ["threadlab", "threadlab.kernel_ext"])
def test_importing_leaves_the_heavy_modules_unloaded(module: str) -> None:
    probe = f"import sys, {module}; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""`import threadlab` (and what `%load_ext threadlab` imports) leaves what is slow to import
until it is first needed: jsonschema (seconds with the optional format packages a notebook
server installs), nbformat (which imports it) and the price tables; and loading the extension
imports none of threadlab's runtime, definitions, MCP, evaluation or widgets, which the first
cell that needs them imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.processes  # it starts a fresh interpreter per import

HEAVY = ("jsonschema", "nbformat", "genai_prices")
# threadlab's parts that a cell imports when it first needs them.
LATER = ("definitions", "runtime", "execution", "mcp", "mcp_client", "evaluation", "widgets",
         "store", "threads", "models", "sandbox", "otel", "_data")  # fmt: skip


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", ["threadlab", "threadlab.kernel_ext"])
def test_importing_leaves_the_heavy_modules_unloaded(module: str) -> None:
    loaded = _loaded_after(f"import {module}")
    assert [m for m in HEAVY if m in loaded] == []


def test_loading_the_extension_imports_only_the_magics() -> None:
    loaded = _loaded_after(
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.instance().run_line_magic('load_ext', 'threadlab')"
    )
    assert "threadlab.kernel_ext._magics" in loaded
    early = [m for m in loaded for part in LATER if m.startswith(f"threadlab.{part}")]
    assert early == []
    assert [m for m in ("anywidget", "pydantic", "mcp", *HEAVY) if m in loaded] == []


def test_the_first_cell_that_defines_a_tool_imports_what_it_needs() -> None:
    loaded = _loaded_after(
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "shell.run_line_magic('load_ext', 'threadlab')\n"
        "shell.run_cell_magic('tool', '', 'def shout(state, text: str) -> str:\\n"
        "    return text.upper()\\n')\n"
        "assert __import__('threadlab').default_registry().tool('shout')"
    )
    assert "threadlab.definitions" in loaded
    assert [m for m in ("threadlab.mcp", "threadlab.evaluation") if m in loaded] == []

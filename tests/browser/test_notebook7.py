"""The same environment in Notebook 7 (`/notebooks/...`, served beside JupyterLab): a
newcomer's tool, prompt and thread run there, and the live view draws, streams and ends
"completed", in light and dark. Screenshots during and after the run."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Lab
from .test_lab import write_notebook
from .test_live_inspector import shut_down_kernels
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts Jupyter's server in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl\n"
    'tl.define_model("slow", provider="offline", model="offline", options={"delay": 0.05})\n'
    '%config ThreadlabMagics.default_model = "slow"',
    '%%tool\ndef shout(state, text: str) -> str:\n    """Say it loudly."""\n'
    "    return text.upper()",
    "%%prompt shouter --tools shout\nShout what you are given.",
    "%%thread shouter\nhello from notebook seven",
]


def ours(error: Any) -> list[str]:
    """A page error, unless Notebook's own code alone raised it (every frame of its stack in
    Notebook's bundle): Notebook 7.6.5 on JupyterLab 4.6.6 reads a settings schema it does not
    find (so with every extension disabled too) and, on a server whose workspace JupyterLab
    used, runs a JupyterLab command it does not have. An error with a frame anywhere else is
    counted."""
    stack = f"{error.stack}"
    places = re.findall(r"https?://[^\s()]+:\d+:\d+", stack)
    if places and all("/static/notebook/" in place for place in places):
        return []
    return [f"{error}\n{stack}"]


def test_a_thread_runs_and_draws_in_notebook_7(lab: Lab, browser: Any) -> None:
    write_notebook(lab, CELLS, "seven.ipynb")
    shots = lab.root.parent / "shots"
    shots.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.extend(ours(error)))
    try:
        page.goto(f"{lab.url}/notebooks/seven.ipynb?token={lab.token}")
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
        page.wait_for_selector(".jp-NotebookKernelStatus-idle, [data-status=idle]",
                               state="attached", timeout=60_000)  # fmt: skip
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        view = page.locator("[data-testid=inspector]").first
        view.wait_for(timeout=90_000)
        status = view.locator("[data-testid=run-status]").first
        status.wait_for(timeout=30_000)
        page.screenshot(path=str(shots / "notebook7-running-light.png"))
        view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=90_000)
        assert "HELLO FROM NOTEBOOK SEVEN" in view.inner_text()
        in_both_themes(page, shots / "notebook7-done",
                       show=lambda: centre(view))  # fmt: skip
        assert "Error displaying widget" not in page.inner_text("body")
        assert errors == []
        print(f"screenshots: {shots}")
    finally:
        page.close()
        shut_down_kernels(lab)

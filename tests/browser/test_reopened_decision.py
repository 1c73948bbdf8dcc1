"""A thread that waits survives a kernel restart: `%threadlab open ID` in JupyterLab shows the
waiting card with its buttons, and a click records the decision and resumes the run in that
view."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import run_cell, write_notebook
from .themes import set_theme

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

DEFINE = [
    "%load_ext threadlab\nimport threadlab as tl",
    '%%tool --approval always\ndef delete_file(state, path: str) -> str:\n    """Delete a file."""'
    '\n    return f"deleted {path}"',
    "%%prompt janitor --tools delete_file\nTidy the workspace.",
]
CELLS = [
    *DEFINE,
    # A script's Runtime has no approver: the run pauses before the call and ends "waiting".
    'rt = tl.Runtime()\nwaiting = await rt.create_thread("janitor")\n'
    'print((await waiting.send("Tidy up.")).status)\n'
    'open("waiting-id", "w").write(waiting.id)',
    'thread_id = open("waiting-id").read()\n%threadlab open {thread_id}',
]


def test_a_waiting_thread_is_decided_in_its_reopened_card(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    shots = lab.root.parent / "shots"
    shots.mkdir(exist_ok=True)
    try:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        path = write_notebook(lab, CELLS, "reopened.ipynb")
        page.goto(lab.notebook_url(path.name))
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        news = page.locator(".jp-Notification-Toast-Close")
        if news.count():
            news.first.click()
        for index in range(len(CELLS) - 1):
            run_cell(page, index)
        cells = page.locator(".jp-Notebook .jp-Cell")
        cells.nth(3).locator(".jp-OutputArea", has_text="waiting").wait_for(timeout=60_000)
        # The next day: a fresh kernel, the definitions run again, the thread opened.
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
        page.locator(".lm-Menu-itemLabel", has_text="Restart Kernel…").first.click()
        page.locator(".jp-Dialog button", has_text="Restart").click()
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        for index in [*range(len(DEFINE)), len(CELLS) - 1]:
            run_cell(page, index)
        view = cells.nth(len(CELLS) - 1).locator("[data-testid=inspector]")
        bar = view.locator("[data-testid=decision-bar]")
        bar.wait_for(timeout=60_000)
        assert view.locator("[data-testid=run-status]").inner_text() == "waiting"
        bar.evaluate("e => e.scrollIntoView({block: 'center'})")
        set_theme(page, "JupyterLab Dark")
        page.screenshot(path=str(shots / "reopened-asks-dark.png"))
        set_theme(page, "JupyterLab Light")
        bar.locator("[data-testid=approve]").click()
        view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
        assert bar.count() == 0
        card = view.locator("[data-testid=tool-card]").first
        assert card.get_attribute("data-status") == "success"
        card.locator("summary").click()
        assert "approved (in the view)" in card.inner_text()
        page.screenshot(path=str(shots / "reopened-approved-light.png"))
        assert errors == []
    except Exception:
        page.screenshot(path=str(shots / "reopened-failure.png"), full_page=True)
        raise
    finally:
        page.close()

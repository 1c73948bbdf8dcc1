"""Interrupting a running %%thread cell from JupyterLab's Kernel menu leaves a view that tells
the truth: the call that was running shows its "interrupted" result, nothing still says
running."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_card, run_cell, write_notebook

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport asyncio",
    '%%tool\nasync def hang(state) -> str:\n    """Wait a long time."""\n'
    "    await asyncio.sleep(600)\n    return 'never'",
    "%%prompt hanger --tools hang\nCall hang.",
    "%%thread hanger\nGo.",
]


def test_an_interrupted_runs_view_shows_every_calls_truth(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        path = write_notebook(lab, CELLS, "interrupt.ipynb")
        page.goto(lab.notebook_url(path.name))
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        for index in range(4):
            run_cell(page, index)
        cell = page.locator(".jp-Notebook .jp-Cell").nth(3)
        cell.locator("[data-testid=tool-card][data-status=running]").wait_for(timeout=60_000)
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
        page.get_by_text("Interrupt Kernel", exact=True).click()
        view = cell.locator("[data-threadlab=live] [data-testid=inspector]:visible")
        view.locator("[data-testid=run-status]", has_text="interrupted").wait_for(timeout=60_000)
        card = view.locator("[data-testid=tool-card]")
        assert card.get_attribute("data-status") == "interrupted"  # not the tool's error
        open_card(card)
        assert "interrupted: the run was stopped before this call finished" in card.inner_text()
        assert "run interrupted" in cell.locator(".jp-OutputArea").inner_text()
        assert cell.locator("[data-status=running]").count() == 0
        page.screenshot(path=str(lab.root.parent / "interrupted.png"))
    finally:
        page.close()

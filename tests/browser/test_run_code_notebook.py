"""The run_code example notebook in a real browser: each tool card shows the snippet's output
and the sandbox's verdict, readable in the light and the dark theme."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_card, run_cell
from .themes import in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def test_run_code_cards_show_output_and_verdict(lab: Lab, browser: Any) -> None:
    shutil.copyfile(NOTEBOOKS / "run_code.ipynb", lab.root / "run_code.ipynb")
    shots = lab.root.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(lab.notebook_url("run_code.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        for index in (1, 2, 3, 4, 6):
            run_cell(page, index)
        cell = page.locator(".jp-Notebook .jp-Cell").nth(6)
        static = cell.locator("[data-threadlab=live] [data-testid=inspector]:visible")
        static.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=90_000)
        cards = static.locator("[data-testid=tool-card]")
        assert cards.count() == 2
        for index in range(2):
            open_card(cards.nth(index))
        text = static.inner_text()
        assert "squares: [1,4,9]" in text
        assert "longest: quick" in text
        assert text.count("the code ran and returned a result") == 2
        in_both_themes(page, shots / "run_code", show=static.scroll_into_view_if_needed,
                       of=static)  # fmt: skip
        print(f"screenshots: {shots}")
    finally:
        page.close()

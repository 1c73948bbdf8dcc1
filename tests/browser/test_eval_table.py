"""An evaluation in JupyterLab: the table fills in while the runs go (progress and the time
left), a filter keeps the failures, and a click on a cell opens that run's thread below it;
screenshots during and after, light and dark."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import open_and_run
from .themes import in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    "%%tool\ndef search(state, query: str) -> str:\n"
    '    """Search the catalogue."""\n    return f"found {query}"',
    "%%prompt finder --tools search\nFind things.",
    # Two settings of the offline model: one streams slowly enough to watch the table fill.
    'tl.define_model("quick", provider="offline", model="offline")\n'
    'tl.define_model("slow", provider="offline", model="offline", options={"delay": 0.02})',
    "%%eval finder --models quick,slow --called search --concurrency 2\n"
    "tea => found tea\ncoffee => found milk\nwater\nbread => found bread\n",
]


def test_the_table_fills_filters_and_opens_a_runs_thread(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "eval-failure.png") as (page, shots):
        open_and_run(lab, page, CELLS, "evaluate.ipynb")
        output = page.locator(".jp-Notebook .jp-Cell").nth(4)
        table = output.locator("[data-testid=eval-table]:visible")
        table.wait_for(timeout=60_000)
        page.screenshot(path=str(shots / "eval-running-light.png"))
        progress = output.locator("[data-testid=eval-progress]:visible", has_text="8 / 8 runs")
        progress.wait_for(timeout=60_000)
        assert "6 passed" in progress.inner_text()  # coffee wants milk: it finds coffee
        assert output.locator("[data-threadlab=live]").count() == 1
        cells = table.locator("[data-testid=eval-cell]")
        assert cells.count() == 8
        output.locator("[data-testid=eval-evalFailures]:visible").check()
        assert table.locator("tr[data-case]").count() == 1
        failed = cells.first
        assert "✗" in failed.inner_text()
        thread = failed.get_attribute("data-thread")
        failed.click()
        inspector = output.locator("[data-testid=inspector]:visible")
        inspector.wait_for(timeout=30_000)
        assert "coffee" in inspector.inner_text()
        assert thread is not None
        assert thread in inspector.inner_text()
        assert "tl-opened" in (failed.get_attribute("class") or "")
        in_both_themes(page, shots / "eval-opened")

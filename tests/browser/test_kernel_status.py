"""While a `%%thread` cell runs, JupyterLab's status bar says the kernel is busy — also after
the cell's live view has sent the kernel its messages (which ipykernel reports as requests of
their own, busy then idle) — and a structured progress bar tells its rate and time left."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab",
    '%%tool\nasync def slow(state) -> str:\n    """Take a while."""\n'
    "    import asyncio\n    for step in range(5):\n"
    "        state.emit('progress', {'step': step, 'of': 5})\n"
    "        await asyncio.sleep(1)\n    return 'done'",
    "%%prompt p --tools slow\nx",
    "%%thread p\ngo",
]


def test_the_status_bar_says_busy_for_the_whole_run(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        open_and_run(lab, page, CELLS, "busy.ipynb")
        status = page.locator(".jp-StatusBar-TextItem", has_text="Python 3 (ipykernel) |")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(len(CELLS) - 1)
        # The view is on screen and has said so to the kernel; the tool sleeps 4 s.
        cell.locator("[data-testid=tool-card]").first.wait_for(timeout=60_000)
        cell.locator("[data-testid=tool-card] summary").first.click()
        page.wait_for_timeout(500)
        seen = []
        bars = []
        while cell.locator(".jp-InputPrompt").inner_text().strip() == "[*]:":
            seen.append(status.first.inner_text())
            bar = cell.locator("[data-testid=tool-progress-bar]")
            if bar.count():
                bars.append(bar.first.inner_text())
                if "ETA" in bars[-1] and not any("ETA" in b for b in bars[:-1]):
                    page.screenshot(path=str(lab.root.parent / "progress-eta.png"))
            page.wait_for_timeout(100)
        assert len(seen) > 10  # sampled for seconds, while the cell ran
        # The last sample may catch the cell's own end; every other one says busy.
        assert all(text.endswith("Busy") for text in seen[:-1]), seen
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=30_000)
        # The card's progress bar tells the rate and the time left while it runs (the
        # card is opened for it: the bar is in its body).
        assert any(" · 1.0/s · ETA " in text for text in bars), bars
    finally:
        page.close()

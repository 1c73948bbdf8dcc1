"""The thread list in JupyterLab: a page of rows at a time with "show more", a search box
over ids, agents, notebooks and statuses, and the opened thread's row marked."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    "%%prompt listed\nx",
    "rt = tl.Runtime()\nfor i in range(55):\n    await rt.create_thread('listed')\n"
    "wanted = (await rt.create_thread('listed')).id",
    "%threadlab threads --all",
]


def test_page_search_and_open(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        open_and_run(lab, page, CELLS, "listing.ipynb")
        listing = page.locator(".jp-Notebook .jp-Cell").nth(3)
        rows = listing.locator("[data-testid=thread-row]")
        listing.locator("[data-testid=thread-list]").wait_for(timeout=60_000)
        more = listing.locator("[data-testid=more-threads]")
        assert rows.count() == 50
        total = int(more.inner_text().rsplit(" ", 1)[1])
        assert total >= 56
        more.click()
        assert rows.count() == min(100, total)
        newest = rows.first.get_attribute("data-thread")
        search = listing.locator("[data-testid=thread-search]")
        search.fill(str(newest)[-10:])
        assert rows.count() == 1
        assert search.evaluate("e => document.activeElement === e")  # typing goes on
        rows.first.locator("[data-testid=open-thread]").click()
        listing.locator("[data-testid=inspector]").wait_for(timeout=30_000)
        assert "tl-opened" in (rows.first.get_attribute("class") or "")
        date = rows.first.locator(".tl-date")
        assert date.evaluate("e => getComputedStyle(e).whiteSpace") == "nowrap"
    finally:
        page.close()

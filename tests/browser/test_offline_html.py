"""A notebook run headless, exported by nbconvert and opened in Chromium with the network
cut off: every threadlab output reads (the static HTML beside threadlab's own type), none is
left blank waiting for a widget manager from a CDN."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from threadlab.widgets._views import VIEW_MIME, WIDGET_MIME

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    '%%tool\ndef shout(state, text: str) -> str:\n    """Say it louder."""\n'
    "    return text.upper()",
    "%%prompt caller --tools shout\nShout what you are told.",
    "%%thread caller\nhello there",
    "%%thread caller --new --live\nagain",
    "%threadlab threads",
    "tid = tl.Runtime().threads()[-1].id\n%threadlab open {tid}",
]


def run_and_export(folder: Path) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    client = NotebookClient(
        notebook, kernel_name="python3", timeout=120, resources={"metadata": {"path": folder}}
    )
    # In a thread of its own: Playwright's sync API holds this thread's event loop.
    failed: list[BaseException] = []

    def execute() -> None:
        try:
            asyncio.run(client.async_execute())
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=execute)
    worker.start()
    worker.join()
    assert failed == []
    views = [
        o["data"]
        for c in notebook.cells
        for o in c.get("outputs", [])
        if VIEW_MIME in o.get("data", {})
    ]
    assert len(views) == 4  # two runs, the list, the opened thread
    assert not any(WIDGET_MIME in data for data in views)
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    page = folder / "exported.html"
    page.write_text(body)
    return page


def test_exported_html_reads_offline(tmp_path: Path, browser: Any) -> None:
    exported = run_and_export(tmp_path)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    asked: list[str] = []

    def cut_off(route: Any) -> None:
        asked.append(route.request.url)
        route.abort()

    try:
        page.route("http://**/*", cut_off)
        page.route("https://**/*", cut_off)
        page.goto(exported.as_uri())
        traces = page.locator(".threadlab-static")
        assert traces.count() == 3
        for index in range(3):
            trace = traces.nth(index)
            assert trace.is_visible()
            card = trace.locator("details.threadlab-card").first
            card.locator("summary").click()
            assert "HELLO THERE" in card.inner_text() or "AGAIN" in card.inner_text()
        listing = page.locator(".threadlab-threads")
        assert listing.is_visible()
        assert listing.locator("tr").count() == 3  # a header and the two threads
        page.screenshot(path=str(tmp_path / "offline-html.png"), full_page=True)
    finally:
        page.close()

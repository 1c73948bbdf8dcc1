"""A long thread (2,000 tool calls, 20 subagents with histories of their own) found in
JupyterLab's Threads panel and opened in a tab, and the same thread shared as one HTML file
opened in Chromium with every network request blocked: how long each takes, from the click (or
the page's navigation) to the player drawn at its last point. No timing assert (machines are
noisy): the figures are printed, and recorded in benchmarks/README.md."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from benchmarks.player import build

import threadlab as tl

from .conftest import Lab, shown_page
from .test_threads_panel import open_panel, row

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

DRAWN_AT_THE_END = """() => {
  const where = document.querySelector("[data-testid=player-where]");
  const m = where && /^(\\d+) \\/ (\\d+)/.exec(where.textContent);
  return Boolean(m && m[1] === m[2]);
}"""


def long_thread(lab: Lab) -> str:
    """The long thread, built in the lab's store (the panel's), off Playwright's loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, build(lab.root / ".threadlab")).result()


def test_a_long_thread_opens_from_the_panel_and_as_a_shared_file(
    lab: Lab, browser: Any, tmp_path: Path
) -> None:
    thread_id = long_thread(lab)
    with shown_page(lab, browser, "long-thread-tab-failure.png") as (page, shots):
        panel = open_panel(lab, page)
        found = row(page, thread_id)
        found.wait_for(timeout=60_000)
        started = time.perf_counter()
        found.click()
        page.wait_for_function(DRAWN_AT_THE_END, timeout=120_000, polling=50)
        tab_ms = (time.perf_counter() - started) * 1000
        assert panel.is_visible()
        page.screenshot(path=str(shots / "long-thread-tab.png"))

    runtime = tl.Runtime(None, lab.root / ".threadlab")
    shared = tmp_path / "long-thread.html"
    started = time.perf_counter()
    tl.share(runtime.thread(thread_id), shared)
    share_ms = (time.perf_counter() - started) * 1000
    runtime.close()
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        asked: list[str] = []

        def refuse(route: Any) -> None:
            if route.request.url.startswith("file://"):
                route.continue_()  # the page itself
                return
            asked.append(route.request.url)
            route.abort()

        page.route("**/*", refuse)
        started = time.perf_counter()
        page.goto(shared.as_uri())
        page.wait_for_function(DRAWN_AT_THE_END, timeout=120_000, polling=50)
        file_ms = (time.perf_counter() - started) * 1000
        assert asked == []  # it asked the network for nothing
    finally:
        page.close()
    size_mb = shared.stat().st_size / 1e6
    print(
        f"long thread: tab from the panel {tab_ms:.0f} ms; tl.share {share_ms:.0f} ms"
        f" ({size_mb:.1f} MB); the file opened in {file_ms:.0f} ms"
    )

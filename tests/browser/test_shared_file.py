"""A thread shared as one HTML file, opened in Chromium as a colleague opens an attachment:
from disk, every network request blocked. The player draws, steps with the keys, shows a
subagent and a file's content; nothing is requested. Screenshots in light and dark."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import text

from ..execution.test_subagents import create_then, helper
from .conftest import Lab

pytestmark = pytest.mark.processes  # it starts Chromium


def shared_thread(registry: tl.Registry, folder: Path) -> Path:
    """A lead that created a subagent, shared as one file."""
    helper(registry)
    lead = create_then(lambda ref: text("all done"))
    tl.define_prompt("lead", prompt="Lead.", model=lead, registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip

    async def run() -> Path:
        rt = tl.Runtime(registry, folder / "store")
        thread = await rt.create_thread("boss")
        await thread.send("go")
        shared = tl.share(thread, folder / "shared.html")
        rt.close()
        return shared

    with ThreadPoolExecutor(1) as pool:  # Playwright holds this thread's event loop
        return pool.submit(asyncio.run, run()).result()


def test_the_shared_file_opens_with_no_network(
    lab: Lab, browser: Any, registry: tl.Registry, tmp_path: Path
) -> None:
    page_file = shared_thread(registry, tmp_path)
    shots = lab.root.parent / "shared"
    shots.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        look(browser, page_file, scheme, shots)


def look(browser: Any, page_file: Path, scheme: str, shots: Path) -> None:
    """Open the file as a colleague would, in `scheme`, every network request refused."""
    context = browser.new_context(viewport={"width": 1300, "height": 900}, color_scheme=scheme)
    requested: list[str] = []
    errors: list[str] = []

    def refuse(route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
            return
        requested.append(route.request.url)
        route.abort()

    context.route("**/*", refuse)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(page_file.as_uri())
        player = page.locator("[data-testid=player]")
        player.wait_for(timeout=30_000)
        assert errors == []
        page.screenshot(path=str(shots / f"shared-start-{scheme}.png"))
        where = page.locator("[data-testid=player-where]")
        assert where.inner_text().startswith("16 / 16")  # it opens on the end
        page.locator("[data-testid=player-scrubber]").focus()
        page.keyboard.press("Home")
        assert where.inner_text().startswith("1 / 16")
        for _ in range(4):
            page.keyboard.press("ArrowRight")
        assert where.inner_text().startswith("5 / 16")
        page.keyboard.press("End")
        tree = page.locator("[data-testid=subagent-tree]")
        assert "w1" in tree.inner_text()
        page.locator("[data-testid=file]", has_text="out.txt").first.click()
        preview = page.locator("[data-testid=file-preview]")
        preview.wait_for(timeout=10_000)
        assert "work on: task" in preview.inner_text()
        assert page.locator("[data-testid=player-close]").count() == 0  # the player stays
        page.screenshot(path=str(shots / f"shared-end-{scheme}.png"))
        assert requested == []  # nothing left the page
    finally:
        context.close()

"""JupyterLab's Threads side panel, as a person uses it: the lab's store listed newest first,
filtered by status, searched, walked with the keys and a thread opened in a tab that draws its
player; a thread stored after the panel opened appears on its own; a store that cannot be
read, or a thread that is gone, is said in words and the lab goes on. Screenshots in both
themes."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

import threadlab as tl
from threadlab.models import FinishChunk, ModelChunk, ModelRequest, TextChunk

from .conftest import Lab, shown_page
from .themes import in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

T = TypeVar("T")
BATCH = f"batch{secrets.token_hex(4)}"
"""A word only this test's threads say: the lab's store holds every thread a test's notebook
ran in the lab's root, some of them about oolong too."""
POLLED_MS = 15_000
"""Long enough for the panel's poll (every 5 s) and a slow machine."""


class Priced:
    """A model that answers with one text and reports its tokens, said to be OpenAI's: its
    steps are priced from the tables."""

    class endpoint:  # where a priced model's requests go: the provider's own API
        base_url = None

    provider = "openai"

    def __init__(self, answer: str) -> None:
        self.name = self.model = "gpt-4o"
        self.answer = answer

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        yield TextChunk(self.answer)
        yield FinishChunk(usage={"input_tokens": 1200, "output_tokens": 340})


def in_store(lab: Lab, making: Callable[[tl.Runtime], Awaitable[T]]) -> T:
    """`making(runtime)` on the lab's store (the panel's), off Playwright's event loop."""

    async def run() -> T:
        registry = tl.Registry()
        brewer = Priced("steeped the oolong for three minutes")
        tl.define_prompt("brewer", prompt="Brew.", model=brewer, registry=registry)
        # A model with no step to play: the run fails.
        spiller = tl.models.ScriptedModel([])
        tl.define_prompt("spiller", prompt="Spill.", model=spiller, registry=registry)
        rt = tl.Runtime(registry, lab.root / ".threadlab")
        try:
            return await making(rt)
        finally:
            rt.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


async def three_threads(rt: tl.Runtime) -> dict[str, str]:
    """One that ran, one whose run failed, one never run (newest), by name."""
    brewed = await rt.create_thread("brewer")
    await brewed.send(f"brew the oolong tea, {BATCH}")
    spilled = await rt.create_thread("spiller")
    await spilled.send("spill the kettle")
    waiting = await rt.create_thread("brewer")
    return {"brewed": brewed.id, "spilled": spilled.id, "waiting": waiting.id}


async def sixty_never_run(rt: tl.Runtime) -> list[str]:
    return [(await rt.create_thread("brewer")).id for _ in range(60)]


async def never_run(rt: tl.Runtime) -> str:
    return (await rt.create_thread("brewer")).id


async def one_more(rt: tl.Runtime) -> str:
    late = await rt.create_thread("brewer")
    await late.send("a late cup of sencha")
    return late.id


def count_rows(page: Any, test: str) -> None:
    """Wait until the number of rows `n` passes `test` ("n === 50")."""
    page.wait_for_function(
        f"() => {{ const n = document.querySelectorAll('[data-testid=threads-row]').length;"
        f" return {test}; }}",
        timeout=POLLED_MS,
    )


def row(page: Any, thread_id: str) -> Any:
    return page.locator(f"[data-testid=threads-row][data-thread='{thread_id}']")


def listed(page: Any) -> list[str]:
    rows = page.locator("[data-testid=threads-row]")
    return [str(r.get_attribute("data-thread")) for r in rows.all()]


def open_panel(lab: Lab, page: Any) -> Any:
    page.goto(f"{lab.url}/lab?token={lab.token}&reset")
    page.locator(".jp-Launcher").wait_for(timeout=60_000)
    news = page.locator(".jp-Notification-Toast-Close")
    if news.count():
        news.first.click()
    page.locator(".jp-SideBar [data-id=threadlab-threads]").click()
    panel = page.locator("#threadlab-threads")
    panel.wait_for(timeout=60_000)
    return panel


def test_the_panel_lists_filters_searches_opens_and_follows(
    lab: Lab, browser: Any, tmp_path: Path
) -> None:
    made = in_store(lab, three_threads)
    with shown_page(lab, browser, "threads-panel-failure.png") as (page, _):
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        panel = open_panel(lab, page)
        row(page, made["waiting"]).wait_for(timeout=30_000)

        # Newest first, each with what it did.
        ids = listed(page)
        mine = [i for i in ids if i in made.values()]
        assert mine == [made["waiting"], made["spilled"], made["brewed"]]
        brewed = row(page, made["brewed"])
        assert brewed.get_attribute("data-status") == "completed"
        facts = brewed.locator(".tl-threads-facts").inner_text()
        assert "1.5K tokens" in facts
        assert "$" in facts
        assert "script" in facts
        assert "brewer" in brewed.locator(".tl-threads-target").inner_text()
        assert brewed.locator(".tl-threads-when").inner_text() == "just now"
        assert row(page, made["spilled"]).get_attribute("data-status") == "failed"
        in_both_themes(page, tmp_path / "threads-panel", of=panel)

        # Filtered by status: the failed one alone of these.
        panel.locator("[data-testid=threads-status]").select_option("failed")
        page.wait_for_function(
            "id => !document.querySelector(`[data-thread='${id}']`)", arg=made["brewed"]
        )
        assert made["spilled"] in listed(page)
        rows = page.locator("[data-testid=threads-row]").all()
        assert {r.get_attribute("data-status") for r in rows} == {"failed"}
        panel.locator("[data-testid=threads-status]").select_option("")
        # The whole list back first: on a busy machine the filtered one is still shown a
        # moment, and it lacks the row the search below waits to see go.
        row(page, made["waiting"]).wait_for(timeout=10_000)

        # Searched: a word of one thread's messages.
        search = panel.locator("[data-testid=threads-search]")
        search.fill(BATCH)
        page.wait_for_function(
            "id => !document.querySelector(`[data-thread='${id}']`)", arg=made["waiting"]
        )
        assert listed(page) == [made["brewed"]]
        search.fill("")
        row(page, made["waiting"]).wait_for(timeout=10_000)

        # The keys walk the list; Enter opens the thread in a tab that draws its player.
        page.locator("[data-testid=threads-list]").focus()
        page.keyboard.press("Home")
        for _ in range(listed(page).index(made["brewed"])):
            page.keyboard.press("ArrowDown")
        assert brewed.get_attribute("aria-selected") == "true"
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        tab = page.locator(f"[data-testid=thread-tab][data-thread='{made['brewed']}']")
        player = tab.locator("[data-testid=player]")
        player.wait_for(timeout=30_000)
        assert "oolong" in tab.inner_text()
        label = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
        assert label.inner_text().strip() == f"brewer · {made['brewed'][:12]}"
        assert brewed.get_attribute("aria-selected") == "true"  # the selection stays
        # The player has the keys: ← steps it back.
        where = tab.locator("[data-testid=player-where]")
        assert where.inner_text().startswith("3 / 3")
        page.keyboard.press("ArrowLeft")
        assert where.inner_text().startswith("2 / 3")
        page.keyboard.press("End")
        in_both_themes(page, tmp_path / "thread-tab")

        # Clicked again: the same tab comes forward, not a second one.
        brewed.click()
        assert page.locator("[data-testid=thread-tab]").count() == 1

        # Live: a thread stored now appears within a poll, on top, the selection kept.
        late = in_store(lab, one_more)
        row(page, late).wait_for(timeout=POLLED_MS)
        assert listed(page)[0] == late
        assert brewed.get_attribute("aria-selected") == "true"
        page.wait_for_function(
            "id => document.querySelector(`[data-thread='${id}']`).dataset.status === 'completed'",
            arg=late,
            timeout=POLLED_MS,
        )
        assert errors == []


def test_a_failure_is_said_in_the_panel_and_the_lab_goes_on(
    lab: Lab, browser: Any, tmp_path: Path
) -> None:
    made = in_store(lab, three_threads)
    with shown_page(lab, browser, "threads-panel-failure-said.png") as (page, _):
        panel = open_panel(lab, page)
        row(page, made["brewed"]).wait_for(timeout=30_000)

        # The store cannot be opened (the server's 503): said, the rows left as they were.
        said = "the threadlab store /srv/store cannot be opened: database is locked"

        def unavailable(route: Any) -> None:
            body = {"error": said, "store": "/srv/store", "reason": "database is locked"}
            route.fulfill(status=503, content_type="application/json", body=json.dumps(body))

        listing = "/threadlab/api/threads?"
        page.route(lambda url: listing in url, unavailable)
        panel.locator("[data-testid=threads-status]").select_option("completed")
        error = panel.locator("[data-testid=threads-error]")
        error.wait_for(timeout=10_000)
        assert error.inner_text() == said
        assert row(page, made["brewed"]).is_visible()

        # A thread gone from the store (404): its tab says so.
        def gone(route: Any) -> None:
            body = {"error": f"no thread '{made['brewed']}' in this store"}
            route.fulfill(status=404, content_type="application/json", body=json.dumps(body))

        page.route(lambda url: f"/threadlab/api/threads/{made['brewed']}/view" in url, gone)
        row(page, made["brewed"]).click()
        note = page.locator("[data-testid=thread-tab] [data-testid=thread-tab-note][role=alert]")
        note.wait_for(timeout=10_000)
        assert "no thread" in note.inner_text()
        page.screenshot(path=str(tmp_path / "threads-failures-light.png"))

        # The lab goes on: the file browser opens; the store back, the panel reads it again.
        page.locator(".jp-SideBar [data-id=filebrowser]").click()
        page.locator(".jp-DirListing").wait_for(timeout=10_000)
        page.unroute_all()
        page.locator(".jp-SideBar [data-id=threadlab-threads]").click()
        panel.locator("[data-testid=threads-status]").select_option("")
        error.wait_for(state="hidden", timeout=10_000)
        row(page, made["waiting"]).wait_for(timeout=10_000)


def test_load_more_pages_on_and_a_poll_keeps_the_place(
    lab: Lab, browser: Any, tmp_path: Path
) -> None:
    made = in_store(lab, sixty_never_run)
    with shown_page(lab, browser, "threads-panel-failure-paging.png") as (page, _):
        panel = open_panel(lab, page)
        panel.locator("[data-testid=threads-status]").select_option("never run")
        count_rows(page, "n === 50")
        more = panel.locator("[data-testid=threads-more]")
        more.scroll_into_view_if_needed()
        panel.screenshot(path=str(tmp_path / "threads-panel-more-light.png"))
        more.click()
        count_rows(page, "n > 50")
        ids = listed(page)
        assert len(ids) == len(set(ids))
        assert set(made) <= set(ids)
        assert more.is_hidden() or len(ids) == 100

        # Scrolled down the list, a new thread comes on top: the rows in sight stay put.
        looked_at = row(page, ids[30])
        looked_at.evaluate("e => e.scrollIntoView({block: 'start'})")
        top = looked_at.bounding_box()["y"]
        late = in_store(lab, never_run)
        row(page, late).wait_for(state="attached", timeout=POLLED_MS)
        assert listed(page)[:1] == [late]
        assert len(listed(page)) == len(ids) + 1
        assert abs(looked_at.bounding_box()["y"] - top) < 2

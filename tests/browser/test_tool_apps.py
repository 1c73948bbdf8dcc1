"""A tool's own UI (an MCP App) in its card, in JupyterLab with Chromium: the official example
server `@modelcontextprotocol/server-basic-vanillajs` (from the project's npm cache) is
called by a `%%thread` cell; its app shows under the card with the call's result, a click in
the app calls the server's tool again through the kernel, and the app shows the new answer.
The tests' own apps server's app asks to open a link (asked of the person) and its app-only
tool runs. Screenshots in both themes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ..helpers import missing_package
from .conftest import Lab, shown_page
from .test_lab import open_and_run
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / ".cache/npm/node_modules/.bin/node"
BASIC = ROOT / ".cache/npm/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"
APPS = ROOT / "tests/mcp/apps_server.py"


def basic_cells() -> list[str]:
    if not (NODE.exists() and BASIC.exists()):
        missing_package(
            "@modelcontextprotocol/server-basic-vanillajs in .cache/npm (make npm-packages)"
        )
    return [
        "%load_ext threadlab\nimport threadlab as tl",
        f'%%mcp basic\ncommand = "{NODE}"\nargs = ["{BASIC}", "--stdio"]',
        "%%prompt clock --tools mcp:basic\nTell the time.",
        "%%thread clock\nWhat time is it?",
    ]


def test_an_example_servers_app_shows_in_its_card_and_calls_its_server(
    lab: Lab, browser: Any
) -> None:
    cells = basic_cells()
    with shown_page(lab, browser, "tool-app-failure.png") as (page, shots):
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_and_run(lab, page, cells, "tool-app.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(len(cells) - 1)
        box = cell.locator("[data-testid=tool-app]")
        box.wait_for(timeout=90_000)
        assert "ui://get-time/mcp-app.html" in box.inner_text()
        # The app's frame sits in the relay frame the card draws.
        app = cell.frame_locator("[data-testid=app-frame]").frame_locator("iframe")
        shown = app.locator("#server-time")
        # Its document is not the notebook's (no same origin): neither reads the other.
        frame = cell.locator("[data-testid=app-frame]")
        assert frame.evaluate("f => f.contentDocument === null")
        # The app was told the call's result: an ISO time, not "Loading...".
        shown.filter(has_text="T").wait_for(timeout=60_000)
        first = shown.inner_text()
        assert first[:4].isdigit(), first
        assert "T" in first, first
        page.wait_for_timeout(1100)  # the next answer is a later second
        app.locator("#get-time-btn").click()
        shown.filter(has_not_text=first).wait_for(timeout=60_000)
        assert shown.inner_text() > first
        in_both_themes(page, shots / "tool-app", show=lambda: centre(box))
        # A narrow column squeezes it: "wide" shows it over the page, the same app.
        box.locator("[data-testid=app-wide]").click()
        wide = frame.bounding_box()
        assert wide is not None
        assert wide["width"] > 800  # the output's width, not its column's (about 470 px)
        assert shown.inner_text() > first  # it kept what it showed: not loaded again
        page.screenshot(path=str(shots / "tool-app-wide-light.png"))
        page.keyboard.press("Escape")
        page.wait_for_function(
            "() => !document.querySelector('[data-testid=tool-app]').classList"
            ".contains('tl-app-wide')"
        )
        assert errors == []
        print(f"screenshots: {shots}")


APP_CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    f'%%mcp apps\ncommand = "{sys.executable}"\nargs = ["{APPS}"]\ntools = ["board"]',
    "%%prompt boarder --tools mcp:apps\nShow the board.",
    "%%thread boarder\nShow it.",
]


def test_an_apps_own_tool_runs_and_its_wildcard_origin_is_not_granted(
    lab: Lab, browser: Any
) -> None:
    with shown_page(lab, browser, "tool-app-board-failure.png") as (page, shots):
        open_and_run(lab, page, APP_CELLS, "tool-app-board.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(len(APP_CELLS) - 1)
        box = cell.locator("[data-testid=tool-app]")
        box.wait_for(timeout=90_000)
        assert "Not granted to the app (not origins): *" in box.inner_text()
        app = cell.frame_locator("[data-testid=app-frame]").frame_locator("iframe")
        app.locator("#shown", has_text="result").wait_for(timeout=60_000)
        # Its size: what it asked for (120 px), within the host's bounds.
        # (and the frame's border around it)
        assert cell.locator("[data-testid=app-frame]").evaluate("f => f.style.height") == "122px"
        app.locator("#bump").click()
        app.locator("#shown", has_text="bumped 2").wait_for(timeout=60_000)
        # The card shows the app's own call, recorded with it.
        card = cell.locator("details.tl-card", has_text="board")
        card.locator(":scope > summary").click()
        card.locator("[data-testid=tool-events]", has_text="app_tool_call").wait_for(timeout=30_000)
        assert "bump" in card.locator("[data-testid=tool-events]").inner_text()
        in_both_themes(page, shots / "tool-app-board", show=lambda: centre(box))


def test_an_app_reaches_nothing_outside_its_page(
    lab: Lab, browser: Any, pixel_server: tuple[str, list[str]]
) -> None:
    """A page that fetches, loads an image and then navigates its own frame to a server:
    the server is asked nothing (the page's policy, and the relay's for its frame)."""
    url, asked = pixel_server
    page_html = (
        "<p id=s>hostile</p><script>"
        f"fetch('{url}?fetch').catch(() => {{}}); new Image().src = '{url}?img';"
        f"setTimeout(() => {{ location.href = '{url}?navigate'; }}, 300);"
        "</script>"
    )
    cells = [
        "%load_ext threadlab\nimport threadlab as tl",
        f"@tl.tool(ui={page_html!r})\ndef peek(state) -> str:\n    'Peek.'\n    return 'peeked'",
        "%%prompt peeker --tools peek\nPeek.",
        "%%thread peeker\nPeek now.",
    ]
    with shown_page(lab, browser, "tool-app-hostile-failure.png") as (page, shots):
        open_and_run(lab, page, cells, "tool-app-hostile.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(len(cells) - 1)
        box = cell.locator("[data-testid=tool-app]")
        box.wait_for(timeout=90_000)
        page.wait_for_timeout(3000)  # the page tried, and then tried to leave
        assert asked == []
        assert page.url.startswith(lab.url)  # the notebook's page is where it was
        assert "The app was stopped: it left its page." in box.inner_text()
        box.screenshot(path=str(shots / "tool-app-hostile.png"))


BUDGET = (
    ROOT / ".cache/npm/node_modules/@modelcontextprotocol/server-budget-allocator/dist/index.js"
)


def test_a_second_example_servers_app_draws_its_tools_result(lab: Lab, browser: Any) -> None:
    """`@modelcontextprotocol/server-budget-allocator`: its app draws the budget its tool
    returned (a structured result), in the card; its sliders work in the app."""
    if not (NODE.exists() and BUDGET.exists()):
        missing_package(
            "@modelcontextprotocol/server-budget-allocator in .cache/npm (make npm-packages)"
        )
    cells = [
        "%load_ext threadlab\nimport threadlab as tl",
        f'%%mcp budget\ncommand = "{NODE}"\nargs = ["{BUDGET}", "--stdio"]',
        "%%prompt planner --tools mcp:budget\nPlan the budget.",
        "%%thread planner\nShow the budget.",
    ]
    with shown_page(lab, browser, "tool-app-budget-failure.png") as (page, shots):
        open_and_run(lab, page, cells, "tool-app-budget.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(len(cells) - 1)
        box = cell.locator("[data-testid=tool-app]")
        box.wait_for(timeout=90_000)
        app = cell.frame_locator("[data-testid=app-frame]").frame_locator("iframe")
        status = app.locator("#status-bar")
        status.filter(has_text="Allocated").wait_for(timeout=60_000)
        # The tool's budget, not the empty one the page starts with.
        app.locator("#status-bar", has_not_text="$0 / $0").wait_for(timeout=60_000)
        in_both_themes(page, shots / "tool-app-budget", show=lambda: centre(box))

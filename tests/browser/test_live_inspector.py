"""The live inspector as a person uses it, in JupyterLab and Chromium: a tool's card appears
while the model is still streaming its arguments (the model is held at a gate, not the tool),
with the progress text, the growing argument size and an elapsed counter; a card the user
opened stays open while updates stream in; status badges are readable in the light and the
dark theme; the finished trace shows token usage; and the views still read after the notebook
is saved, the kernel shut down and the page reloaded. Screenshots of each stage are saved
under the test's temporary folder (`shots/`)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import Lab, shown_page
from .test_lab import run_cell, write_notebook
from .themes import set_theme

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

SETUP = '''%load_ext threadlab
import asyncio, os
import threadlab as tl
from threadlab.models import FinishChunk, TextChunk, ToolCallChunk
GATE = os.path.abspath("inspector-gate")


class Gated:
    """Streams a write_file call whose content keeps coming until the gate file exists."""

    name = "gated"

    async def stream(self, request):
        if request.messages[-1].role == "tool":
            yield TextChunk("The page is written.\\nIt is short.")
            yield FinishChunk(usage={"input_tokens": 400, "output_tokens": 12})
            return
        head = '{"description": "writing index.html", "path": "/index.html", "content": "'
        yield ToolCallChunk(0, id="call_w", name="write_file", arguments=head)
        while not os.path.exists(GATE):
            await asyncio.sleep(0.05)
            yield ToolCallChunk(0, arguments="<p>green tea</p>\\\\n")  # one line each
        yield ToolCallChunk(0, arguments='"}')
        yield FinishChunk(usage={"input_tokens": 321, "output_tokens": 54})'''

TOOL = '''%%tool --progress description
async def write_file(state, description: str, path: str, content: str) -> str:
    """Write a file.

    Args:
        description: e.g. "writing index.html"
    """
    for step in range(1, 4):
        state.emit("progress", {"step": step, "of": 3})
    await state.write_file(path, content)
    state.emit("saved", {"path": path, "bytes": len(content)})
    return f"wrote {len(content)} characters to {path}"'''

CELLS = [
    SETUP,
    TOOL,
    'tl.define_prompt("builder", prompt="Build.", model=Gated(), tools=["write_file"])',
    "%%thread builder\nMake a page about tea.",
    'tid = next(t.id for t in tl.Runtime().threads() if t.agent == "builder")',
    "%threadlab open {tid}",
    "%threadlab threads",
    "%%thread builder --live\nAnother page.",
]

# The contrast of an element's text against its background as painted over the page (WCAG).
CONTRAST = """(el) => {
  const style = getComputedStyle(el);
  let page = "white";
  for (let n = el.parentElement; n; n = n.parentElement) {
    const b = getComputedStyle(n).backgroundColor;
    if (b && b !== "rgba(0, 0, 0, 0)" && b !== "transparent") { page = b; break; }
  }
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const paint = (over, color) => {
    ctx.fillStyle = page; ctx.fillRect(0, 0, 1, 1);
    if (over) { ctx.fillStyle = over; ctx.fillRect(0, 0, 1, 1); }
    ctx.fillStyle = color; ctx.fillRect(0, 0, 1, 1);
    return ctx.getImageData(0, 0, 1, 1).data;
  };
  const lum = (d) => {
    const c = [0, 1, 2].map((i) => {
      const v = d[i] / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const back = lum(paint(null, style.backgroundColor));
  const fore = lum(paint(style.backgroundColor, style.color));
  return (Math.max(back, fore) + 0.05) / (Math.min(back, fore) + 0.05);
}"""


def opened_soon(page: Any, call_id: str | None) -> bool:
    """Whether the card of `call_id` is open within 2 s."""
    try:
        page.wait_for_function(
            "(id) => document.querySelector(`[data-call='${id}']`)?.open === true",
            arg=call_id,
            timeout=2_000,
        )
    except PlaywrightTimeout:
        return False
    return True


def arguments_size(page: Any) -> int:
    meta = page.locator("[data-testid=tool-card] [data-testid=tool-meta]").first.inner_text()
    found = re.search(r"([\d,]+) chars of arguments", meta)
    assert found, meta
    return int(found.group(1).replace(",", ""))


def shut_down_kernels(lab: Lab) -> None:
    base = f"{lab.url}/api/kernels"
    with urllib.request.urlopen(f"{base}?token={lab.token}") as reply:
        kernels = json.load(reply)
    for kernel in kernels:
        request = urllib.request.Request(
            f"{base}/{kernel['id']}?token={lab.token}", method="DELETE"
        )
        urllib.request.urlopen(request).close()


def test_the_live_inspector_in_a_browser(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "failure.png") as (page, shots):
        walk(lab, page, shots)


def walk(lab: Lab, page: Any, shots: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    path = write_notebook(lab, CELLS, "inspector.ipynb")
    gate = lab.root / "inspector-gate"
    gate.unlink(missing_ok=True)
    page.goto(lab.notebook_url(path.name))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
    news = page.locator(".jp-Notification-Toast-Close")  # "get notified about news?"
    if news.count():
        news.first.click()
    for index in range(4):
        run_cell(page, index)

    # 1. The card is there while the arguments still stream (the model waits at the gate).
    streaming = page.locator("[data-testid=tool-card][data-status=streaming]")
    streaming.locator("[data-testid=tool-progress]", has_text="writing index.html").wait_for(
        timeout=60_000
    )
    assert not gate.exists()
    first_size = arguments_size(page)
    counter = streaming.locator(".tl-elapsed")
    first_count = counter.inner_text()
    page.wait_for_timeout(1200)
    assert arguments_size(page) > first_size  # the size grows as the arguments arrive
    assert counter.inner_text() != first_count  # the elapsed counter ticks
    streaming.first.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "streaming-light.png"))

    # 2. Opened by the user, the card stays open through 3 s of updates.
    card = streaming.first
    card_id = card.get_attribute("data-call")
    card = page.locator(f"[data-testid=tool-card][data-call='{card_id}']")  # whatever its status
    # On a loaded machine JupyterLab may take the first click into a cell's output (it
    # selects the cell, as the screenshot of such a run shows): as a person would, click again.
    for _ in range(3):
        card.locator("summary").first.click()
        if opened_soon(page, card_id):
            break
    assert card.get_attribute("open") is not None
    args = card.locator("[data-testid=tool-args]")
    args.wait_for(timeout=10_000)
    for _ in range(6):
        page.wait_for_timeout(500)
        assert card.get_attribute("open") is not None
    assert "writing index.html" in args.inner_text()
    # The content still streaming reads as lines, not as JSON with "\n" in it.
    assert "content: |\n  <p>green tea</p>\n  <p>green tea</p>" in args.inner_text()
    assert card.locator("[data-testid=tool-progress]").inner_text() == "writing index.html"
    assert arguments_size(page) > first_size

    # Status badges read well in both themes (WCAG AA: contrast >= 4.5), and say the truth.
    badge = page.locator("[data-testid=run-status]").first
    assert badge.inner_text() == "running"
    assert badge.evaluate(CONTRAST) >= 4.5
    set_theme(page, "JupyterLab Dark")
    assert badge.evaluate(CONTRAST) >= 4.5
    assert card.get_attribute("open") is not None  # a theme switch does not close it either
    page.screenshot(path=str(shots / "streaming-dark.png"))

    # The run finishes: the view stays live, the opened card open; line breaks kept, and
    # what the run cost.
    gate.touch()
    done = page.locator(".jp-Notebook .jp-Cell").nth(3)
    static = done.locator("[data-threadlab=live] [data-testid=inspector]:visible")
    static.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
    assert "721 in / 66 out tokens" in static.locator("[data-testid=run-usage]").inner_text()
    text = static.locator("[data-testid=conversation]").inner_text()
    assert "321 in / 54 out tokens" in text
    assert "The page is written.\nIt is short." in text
    finished = static.locator("[data-testid=tool-card]").first
    assert finished.get_attribute("open") is not None
    static.scroll_into_view_if_needed()
    frozen_card = finished.inner_text()
    assert "/index.html" in frozen_card
    assert "3 / 3" in frozen_card
    assert "path: /index.html" in frozen_card
    # Its long content is folded in the finished card: "show all arguments" brings all of it.
    assert "more characters" in finished.locator("[data-testid=tool-args]").inner_text()
    finished.locator("[data-testid=load-arguments]").click()
    finished.locator("[data-testid=load-arguments]").wait_for(state="detached", timeout=30_000)
    whole = finished.locator("[data-testid=tool-args]").inner_text()
    assert "more characters" not in whole
    assert whole.count("<p>green tea</p>") > 12  # more than the 200 folded characters hold
    assert "content: |\n  <p>green tea</p>\n  <p>green tea</p>" in whole
    page.screenshot(path=str(shots / "finished-dark.png"))

    # 3. The views read after saving, shutting the kernel down and reloading the page.
    for index in range(4, 8):
        run_cell(page, index)
    # A --live view stays an inspector; its updates came as patches merged in the front end.
    live_view = page.locator(".jp-Notebook .jp-Cell").nth(7).locator("[data-testid=inspector]")
    page.wait_for_function(
        "() => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[7];"
        " const s = c && c.querySelector('[data-testid=run-status]');"
        " return s && s.textContent === 'completed'; }",
        timeout=60_000,
    )
    assert "Another page." in live_view.locator("[data-testid=conversation]").inner_text()
    page.locator("[data-testid=thread-list]").wait_for(timeout=60_000)
    inspector = page.locator(".jp-Notebook .jp-Cell").nth(5).locator("[data-testid=inspector]")
    inspector.wait_for(timeout=60_000)
    for status in page.locator("[data-testid=run-status]").all():
        assert status.evaluate(CONTRAST) >= 4.5
    page.keyboard.press("Control+s")
    page.wait_for_timeout(2000)
    shut_down_kernels(lab)
    page.reload()
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_timeout(3000)
    assert "Error displaying widget" not in page.inner_text("body")
    reopened = page.locator(".jp-Notebook .jp-Cell").nth(5)
    reopened.locator("[data-testid=inspector]").wait_for(timeout=30_000)
    assert "completed" in reopened.locator("[data-testid=run-status]").inner_text()
    assert "721 in / 66 out tokens" in reopened.locator("[data-testid=run-usage]").inner_text()
    conversation = reopened.locator("[data-testid=conversation]").inner_text()
    assert "The page is written." in conversation
    assert "writing index.html" in conversation
    # No kernel: its header says how to step through it or fork it.
    hint = reopened.locator("[data-testid=reopen-hint]").inner_text()
    assert re.search(r"to step through or fork it, run %threadlab open thr_\w+$", hint), hint
    assert reopened.locator("[data-testid=file][data-path='/index.html']").count() == 1
    # Structured progress is a bar with a count; other events read as lines, not JSON.
    reopened.locator("[data-testid=tool-card] summary").first.click()
    bar = reopened.locator("[data-testid=tool-progress-bar]")
    assert bar.inner_text() == "3 / 3"
    assert bar.locator("progress").get_attribute("value") == "3"
    events = reopened.locator("[data-testid=tool-events]").inner_text()
    assert events.startswith("saved ")
    assert "path: /index.html" in events
    # The saved state of the --live view is its final, patched trace.
    saved_live = page.locator(".jp-Notebook .jp-Cell").nth(7)
    saved_live.locator("[data-testid=inspector]").wait_for(timeout=30_000)
    assert saved_live.locator("[data-testid=run-status]").inner_text() == "completed"
    assert "Another page." in saved_live.locator("[data-testid=conversation]").inner_text()
    assert saved_live.locator("[data-testid=tool-card][data-status=success]").count() >= 1
    assert "in /" in saved_live.locator("[data-testid=run-usage]").inner_text()
    listing = page.locator("[data-testid=thread-list]")
    listing.wait_for(timeout=30_000)
    assert listing.locator("[data-testid=open-thread]").first.is_disabled()  # no kernel
    # The first run's own output too; every view here is drawn from what the file keeps.
    first_run = page.locator(".jp-Notebook .jp-Cell").nth(3)
    assert first_run.locator("[data-testid=run-status]").inner_text() == "completed"
    assert page.locator("[data-threadlab=saved]").count() == 4
    assert page.locator("[data-threadlab=live]").count() == 0
    reopened.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "reopened-dark.png"))
    set_theme(page, "JupyterLab Light")
    listing.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "reopened-light.png"))
    assert errors == []  # no script error on any page, live or reopened

"""The notebook experience in a real browser: live cards, the live subagent tree, the file
browser, a view that stays interactive after its run (what a person opened stays open), and
a saved notebook that reads without the kernel and holds no secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from threadlab.widgets._views import VIEW_MIME, WIDGET_MIME

from .conftest import Lab

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

SECRET = "sk-browser-secret-7781"

SETUP = """%load_ext threadlab
import asyncio, os
import threadlab as tl
GATE = os.path.abspath("gate")"""

TOOL = '''%%tool --progress description --variable API_KEY:secret:required
async def write_file(state, description: str, path: str, content: str) -> str:
    """Write a file once the gate opens.

    Args:
        description: e.g. "waiting at the gate"
    """
    while not os.path.exists(GATE):
        await asyncio.sleep(0.05)
    await state.write_file(path, content)
    return "written with key " + (await state.env("API_KEY"))'''

HAND_IN = '''%%tool
async def hand_in(state, summary: str) -> tl.ToolResult:
    """Hand in the pages."""
    pages = tuple(f.path for f in await state.list_files())
    return tl.ToolResult(result=summary, attachments=pages)'''

CELLS = [
    SETUP,
    TOOL,
    "%%prompt builder --tools write_file\nBuild.",
    HAND_IN,
    "%%prompt critic\nCritique.",
    '%%agent site\ntype = "dual_ai"\n[side_a]\nprompt = "builder"\nsession_stop = "hand_in"\n'
    '[side_b]\nprompt = "critic"',
    "%%prompt lead\nDelegate.",
    '%%agent studio\n[side_a]\nprompt = "lead"\n[[side_a.subagents]]\nname = "site"',
    "%%thread builder --secret API_KEY\nMake a landing page.",
    "os.remove(GATE)",
    "%%thread studio --live\nA page about tea.",
]


def write_notebook(lab: Lab, cells: list[str] = CELLS, name: str = "trace.ipynb") -> Path:
    """A notebook of `cells` in the lab's root folder, not yet run."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    path = lab.root / name
    nbformat.write(notebook, path)
    return path


def open_and_run(lab: Lab, page: Any, cells: list[str], name: str) -> None:
    """Write `cells` as notebook `name`, open it in the page once its kernel is idle, and
    run every cell in order (each one taken by the kernel before the next)."""
    path = write_notebook(lab, cells, name)
    page.goto(lab.notebook_url(path.name))
    page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
    news = page.locator(".jp-Notification-Toast-Close")
    if news.count():
        news.first.click()
    for index in range(len(cells)):
        run_cell(page, index)


def run_cell(page: Any, index: int) -> None:
    """Run one cell and wait until the kernel has taken it (its prompt shows * or a number)."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "(i) => { const p = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
        ".querySelector('.jp-InputPrompt').textContent; return /[*0-9]/.test(p); }",
        arg=index,
        timeout=60_000,
    )


def test_live_views_static_trace_and_no_secret_in_the_saved_notebook(
    lab: Lab, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        check_the_notebook(lab, page)
    except Exception:
        shot = lab.root.parent / "failure.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot of the failure: {shot}")
        raise
    finally:
        page.close()


def check_the_notebook(lab: Lab, page: Any) -> None:
    path = write_notebook(lab)
    gate = lab.root / "gate"
    page.goto(lab.notebook_url(path.name))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    # The kernel must be up before cells run, or Lab drops them.
    page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
    for index in range(8):
        run_cell(page, index)
    # The thread asks for its secret with a hidden input.
    run_cell(page, 8)
    secret_box = page.locator(".jp-Stdin-input")
    secret_box.wait_for(timeout=60_000)
    assert secret_box.get_attribute("type") == "password"
    secret_box.fill(SECRET)
    secret_box.press("Enter")

    # While the tool waits at the gate, its card already shows the progress text; a person
    # opens it.
    first = page.locator(".jp-Notebook .jp-Cell").nth(8)
    progress = first.locator("[data-testid=tool-progress]", has_text="waiting at the gate")
    progress.first.wait_for(timeout=60_000)
    running = first.locator("[data-testid=tool-card][data-status=running]")
    assert running.count() >= 1
    open_card(running.first)
    gate.touch()

    # When the run ends the view stays live (the output is updated to what the file keeps,
    # and drawn again): the card is still open, and the view still answers (a fork editor).
    live = first.locator("[data-threadlab=live] [data-testid=inspector]:visible")
    live.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
    done = live.locator("[data-testid=tool-card]").first
    assert done.get_attribute("data-status") == "success"
    assert done.get_attribute("open") is not None
    assert "waiting at the gate" in done.inner_text()
    assert live.locator("[data-testid=fork-here]").count() >= 1

    # A subagent run: the tree grows while the cell is busy (the child waits at the gate).
    run_cell(page, 9)
    page.wait_for_timeout(500)
    assert not gate.exists()
    run_cell(page, 10)
    studio = page.locator(".jp-Notebook .jp-Cell").nth(10)
    view = studio.locator("[data-testid=inspector]:visible")
    nodes = view.locator("[data-testid=tree-node]")
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell')[10]"
        ".querySelectorAll('[data-testid=inspector] [data-testid=tree-node]').length >= 2",
        timeout=60_000,
    )
    busy = page.locator(".jp-Notebook .jp-Cell").nth(10).locator(".jp-InputPrompt")
    assert "[*]" in busy.inner_text()
    child = nodes.nth(1)
    assert "site-1" in child.inner_text()
    gate.touch()
    view = studio.locator("[data-threadlab=live] [data-testid=inspector]:visible")
    view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)

    # The file browser lists the attachment the child handed back, and previews it (the
    # kernel answers: the view is live after its run).
    files = view.locator("[data-testid=file-browser] [data-testid=file]")
    files.first.wait_for(timeout=30_000)
    paths = [f.get_attribute("data-path") for f in files.all()]
    assert "/attachments/index.html" in paths
    files.filter(has_text="/attachments/index.html").first.click()
    # An HTML file renders in a sandboxed frame; its source is a toggle away.
    view.locator("[data-testid=file-frame]").wait_for(timeout=30_000)
    view.locator("[data-testid=preview-source]").click()
    preview = view.locator("[data-testid=file-preview]")
    preview.wait_for(timeout=30_000)
    assert "<html>" in preview.inner_text()
    # ...and the child's own filesystem has it under its own path.
    view.locator("[data-testid=tree-node]").nth(1).click()
    view.locator("[data-testid=file][data-path='/index.html']").wait_for(timeout=30_000)

    # Save, then search the saved notebook for the secret.
    page.keyboard.press("Control+s")
    page.wait_for_timeout(2000)
    saved = path.read_text()
    assert SECRET not in saved
    notebook = json.loads(saved)
    # What the file keeps reads without the kernel: threadlab's own type and static HTML,
    # no widget view (nothing for a front end to look up), no widget state.
    assert "widgets" not in notebook["metadata"]
    views = [
        o["data"]
        for c in notebook["cells"]
        for o in c.get("outputs", [])
        if VIEW_MIME in o.get("data", {})
    ]
    assert len(views) == 2
    for data in views:
        assert WIDGET_MIME not in data
        assert "threadlab-static" in "".join(data["text/html"])
        assert data[VIEW_MIME]["state"]["trace"]["run"]["status"] == "completed"


def open_card(card: Any) -> None:
    """Open a card by its summary; again if a redraw took the first click (a card that
    streams is redrawn in place many times a second)."""
    for _ in range(5):
        card.locator("summary").first.click()
        if card.get_attribute("open") is not None:
            return
    raise AssertionError("the card did not open")

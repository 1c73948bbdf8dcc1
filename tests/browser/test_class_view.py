"""The instructor's view in JupyterLab, as a teacher uses it: `%threadlab class site checks`
lists each student with where their thread stands and its grade; the keyboard reaches a
student's "open" and opens their thread below; it follows a student's run as it happens.
Screenshots in both themes."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import run_cell, write_notebook
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl\nfrom threadlab import grading as g",
    '''@tl.tool
async def write(state: tl.ThreadState, path: str) -> str:
    """Write a page.

    Args:
        path: where
    """
    await state.write_file(path, "<h1>Tea</h1>")
    return f"wrote {path}"

@tl.tool(approval="always")
def delete(state: tl.ThreadState, path: str) -> str:
    """Delete a page.

    Args:
        path: where
    """
    return "gone"

M = tl.models
plans = {"ann": [M.call("write", {"path": "/index.html"}), M.text("done")],
         "bob": [M.call("delete", {"path": "/old.html"}), M.text("done")],
         "cem": [M.call("write", {"path": "/about.html"}), M.text("a page")]}
for member, plan in plans.items():
    tl.define_prompt("site", prompt="Pages.", tools=["write", "delete"],
                     model=M.ScriptedModel(plan))
    student = tl.Runtime(user=f"{member}_class")
    await (await student.create_thread("site")).send("make the page")
    student.close()''',
    'checks = [(g.called("write", path="/index.html"), 2), g.answer_contains("done")]',
    "%threadlab class site checks",
    """tl.define_prompt("site", prompt="Pages.", tools=["write"],
                 model=M.ScriptedModel([M.text("late but done")]))
late = tl.Runtime(user="dee_class")
await (await late.create_thread("site")).send("make the page")
late.close()""",
]


def test_the_class_as_a_teacher_sees_it(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "class-view-failure.png") as (page, shots):
        page.goto(lab.notebook_url(write_notebook(lab, CELLS, "class.ipynb").name))
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        news = page.locator(".jp-Notification-Toast-Close")
        if news.count():
            news.first.click()
        for index in range(4):
            run_cell(page, index)
        view = page.locator(".jp-Notebook .jp-Cell").nth(3)
        listing = view.locator("[data-testid=class-list]:visible")
        listing.wait_for(timeout=60_000)
        rows = listing.locator("[data-testid=class-row][data-member$=_class]")
        assert rows.count() == 3
        bob = listing.locator("[data-testid=class-row][data-member=bob_class]")
        assert "waits for a decision on delete" in bob.inner_text()
        ann = listing.locator("[data-testid=class-row][data-member=ann_class]")
        assert ann.locator("[data-testid=class-grade]").inner_text() == "3 / 3"
        cem = listing.locator("[data-testid=class-row][data-member=cem_class]")
        assert cem.locator("[data-testid=class-grade]").inner_text() == "0 / 3"
        assert "write was never called with path='/index.html'" in cem.inner_text()
        centre(listing)
        in_both_themes(page, shots / "class-view", show=lambda: centre(listing), of=view)

        # The keyboard: from the list, Tab reaches a student's "open", Enter opens it.
        opener = bob.locator("[data-testid=open-member]")
        opener.focus()
        page.keyboard.press("Enter")
        view.locator("[data-testid=inspector]:visible").wait_for(timeout=30_000)
        assert "tl-opened" in (bob.get_attribute("class") or "")
        assert page.locator(".jp-Notebook .jp-Cell").count() >= 4  # the notebook kept its cells
        in_both_themes(page, shots / "class-view-opened", show=lambda: centre(view), of=view)

        # A student who runs now appears without a refresh.
        run_cell(page, 4)
        listing.locator("[data-testid=class-row][data-member=dee_class]").wait_for(timeout=30_000)

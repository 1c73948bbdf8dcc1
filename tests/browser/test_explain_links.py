"""A lesson's narration links each rule to its guide (`tl.explain(thread,
guides="../docs/guides/")`): in JupyterLab served from the repository's root, as `make lab`
serves it, a click on a rule opens that guide in the lab — not a 404."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab
from .test_lab import run_cell, write_notebook

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

DOCS = Path(__file__).resolve().parents[2] / "docs"
CELLS = [
    "import threadlab as tl",
    '''@tl.tool
def add(state: tl.ThreadState, a: int, b: int) -> int:
    """Add.

    Args:
        a: one
        b: another
    """
    return a + b

M = tl.models
tl.define_prompt("adder", prompt="Add.", tools=["add"], model=M.ScriptedModel([
    M.step(M.call("add", {"a": 1, "b": 2}), M.call("add", {"a": 3, "b": 4})), M.text("3, 7")]))
thread = await tl.Runtime().create_thread("adder")
await thread.send("add")''',
    'tl.explain(thread, guides="../docs/guides/")',
]


def test_a_rule_link_opens_its_guide_in_the_lab(lab: Lab, browser: Any) -> None:
    course = lab.root / "course"
    (course / "notebooks").mkdir(parents=True, exist_ok=True)
    shutil.copytree(DOCS, course / "docs", dirs_exist_ok=True)
    written = write_notebook(lab, CELLS, "lesson_links.ipynb")
    lesson = course / "notebooks" / written.name
    written.replace(lesson)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"{lab.url}/lab/tree/course/notebooks/{lesson.name}?token={lab.token}&reset")
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        for index in range(len(CELLS)):
            run_cell(page, index)
        narration = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-RenderedMarkdown")
        link = narration.locator("a", has_text="§8 Conformance").first
        link.wait_for(timeout=60_000)
        link.click()
        tab = page.locator(".lm-TabBar-tabLabel", has_text="reliability.md")
        tab.wait_for(timeout=30_000)
        page.wait_for_timeout(1000)
        body = page.inner_text(".jp-MainAreaWidget:not(.lm-mod-hidden)")
        assert "Reliability" in body or "reliability" in body
        assert "File Load Error" not in page.inner_text("body")
        page.screenshot(path=str(lab.root.parent / "explain-link-opened.png"))
    finally:
        page.close()

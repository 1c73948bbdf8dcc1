"""'fork from here' in JupyterLab with Chromium: a reopened thread's card offers a fork; the
editor checks its JSON before anything is sent; the branch runs in the same view, which then
shows it under the thread it came from. Screenshots in both themes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import open_and_run
from .themes import set_theme

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    '%%tool\ndef shout(state, text: str) -> str:\n    """Say a text loudly."""\n'
    "    return text.lower()  # the bug",
    "%%prompt shouter --tools shout\nShout what you are given.",
    "%%thread shouter\nShout hello.",
    # This notebook's thread (the lab's other tests share its store).
    "first = next(t for t in tl.Runtime().threads() if t.agent == 'shouter')",
    "%threadlab open {first.id}",
]


def test_fork_from_a_card_runs_the_branch_in_the_view(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "fork-failure.png") as (page, shots):
        walk(lab, page, shots)


def walk(lab: Lab, page: Any, shots: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_and_run(lab, page, CELLS, "fork.ipynb")
    view = (
        page.locator(".jp-Notebook .jp-Cell").nth(len(CELLS) - 1).locator("[data-testid=inspector]")
    )
    view.wait_for(timeout=60_000)
    fork = view.locator("[data-testid=fork-here]").nth(1)  # under the card (0: the question)
    fork.wait_for(timeout=30_000)
    assert not view.locator("[data-testid=fork-form]").first.is_visible()  # closed until asked
    fork.click()
    form = view.locator("[data-testid=fork-form]").nth(1)
    assert form.is_visible()
    editor = form.locator("[data-testid=fork-editor]")
    assert editor.input_value() == '"shout hello."'  # the result as it was, as JSON
    # Not JSON: said in the editor, nothing sent.
    editor.fill('"LOUD')
    form.locator("[data-testid=fork-run]").click()
    assert "not JSON" in form.locator("[data-testid=fork-error]").inner_text()
    editor.fill('"SHOUT HELLO."')
    form.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "fork-editor-light.png"))
    form.locator("[data-testid=fork-run]").click()
    # The branch runs in the view and shows under the thread it came from.
    view.locator("[data-testid=tree-node]", has_text="forked from").wait_for(timeout=60_000)
    view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
    view.locator("[data-testid=conversation]", has_text="SHOUT HELLO.").wait_for(timeout=30_000)
    # The branch's own fork points are its own, closed, and start from its values.
    assert not view.locator("[data-testid=fork-form]").nth(1).is_visible()
    view.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "fork-branch-light.png"))
    set_theme(page, "JupyterLab Dark")
    view.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "fork-branch-dark.png"))
    # The origin, selected, shows again, with the branch under it.
    view.locator("[data-testid=tree-node]", has_text="forked from").click()
    view.locator("[data-testid=tree-node]", has_text="branch at").wait_for(timeout=30_000)
    view.locator("[data-testid=conversation]", has_text="shout hello.").wait_for(timeout=30_000)
    page.screenshot(path=str(shots / "fork-origin-dark.png"))
    set_theme(page, "JupyterLab Light")
    assert errors == []

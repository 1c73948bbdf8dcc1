"""A subagent's cards are its own, in JupyterLab with Chromium: each thread numbers its calls
its own way (a local OpenAI-compatible server starts every reply at call_0), so a child's
call_0 is shown, decided and answered as the child's, never as its parent's call_0."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl\n"
    "from threadlab.models import ScriptedModel, call, text",
    '%%tool --approval always\ndef delete_file(state, path: str) -> str:\n    """Delete a file."""'
    '\n    return f"deleted {path}"',
    "tl.define_prompt('w', prompt='Tidy.', tools=['delete_file'], model=ScriptedModel(\n"
    "    [call('delete_file', {'path': '/tmp/draft.txt'}, id='call_0'), text('tidied')]))\n"
    "tl.define_agent('tidier', side_a='w')\n"
    "create = call('subagent_create', {'agent': 'tidier', 'name': 't1', 'message': 'go'},\n"
    "              id='call_0')\n"
    "tl.define_prompt('lead', prompt='Lead.', model=ScriptedModel([create, text('all done')]));",
    '%%agent boss\n[side_a]\nprompt = "lead"\nsubagents = [{name = "tidier"}]',
    "%%thread boss\ngo",
]


def test_a_childs_call_is_decided_in_its_own_card(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_and_run(lab, page, CELLS, "child-cards.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(len(CELLS) - 1)
        view = cell.locator("[data-testid=inspector]")
        # The child's call waits; the tree shows the child, chosen to see its conversation.
        view.locator("[data-testid=tree-node]").nth(1).wait_for(timeout=60_000)
        view.locator("[data-testid=tree-node]").nth(1).click()
        bar = view.locator("[data-testid=decision-bar]")
        bar.first.wait_for(timeout=60_000)
        key = bar.first.get_attribute("data-call") or ""
        assert key.endswith("/call_0"), key  # the child's call_0, not the lead's
        card = view.locator(f"[data-testid=tool-card][data-call='{key}']")
        assert card.get_attribute("data-status") == "waiting"
        card.locator("summary").click()
        assert "/tmp/draft.txt" in card.locator("[data-testid=tool-args]").inner_text()
        centre(card)
        in_both_themes(page, lab.root.parent / "child-card-waiting", of=view)
        # Approved with the keyboard: once decided, the keyboard is on the call's card.
        bar.first.locator("[data-testid=approve]").focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(k) => document.querySelector(`[data-testid=tool-card][data-call='${k}']`)"
            "?.getAttribute('data-status') === 'success'",
            arg=key,
            timeout=60_000,
        )
        page.wait_for_function(
            "(k) => document.activeElement?.parentElement"
            "?.matches(`[data-testid=tool-card][data-call='${k}']`)",
            arg=key,
            timeout=10_000,
        )
        cell.locator(".jp-InputPrompt", has_text="[5]").wait_for(timeout=60_000)
        assert "deleted /tmp/draft.txt" in card.inner_text()
        # The lead's own call_0 is its subagent_create, in the lead's conversation.
        view.locator("[data-testid=tree-node]").nth(0).click()
        lead = view.locator("[data-testid=tool-card][data-call='call_0']")
        lead.wait_for(timeout=30_000)
        assert "subagent_create" in lead.locator("summary").first.inner_text()
        centre(view)
        in_both_themes(page, lab.root.parent / "child-card-after", of=view)
        # Chosen with the keyboard, a node keeps the focus when the tree is drawn again.
        child_node = view.locator("[data-testid=tree-node]").nth(1)
        child_node.focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.activeElement?.getAttribute('data-testid') === 'tree-node'"
            " && document.activeElement.classList.contains('tl-selected')",
            timeout=10_000,
        )
        assert errors == []
    finally:
        page.close()

"""The subagent tree rolls its children's progress up: while a child's tool runs, its parent's
node says what goes on below it."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl\n"
    "from threadlab.models import ScriptedModel, call, text",
    "%%tool --progress description\nasync def draft(state, description: str) -> str:\n"
    '    """Draft something."""\n    import asyncio\n    await asyncio.sleep(4)\n'
    "    return 'drafted'",
    "tl.define_prompt('w', prompt='Write.', tools=['draft'], model=ScriptedModel(\n"
    "    [call('draft', {'description': 'drafting the intro'}), text('done')]))\n"
    "tl.define_agent('writer', side_a='w')\n"
    "create = call('subagent_create', {'agent': 'writer', 'name': 'w1', 'message': 'go'})\n"
    "tl.define_prompt('lead', prompt='Lead.', model=ScriptedModel([create, text('all done')]));",
    '%%agent boss\n[side_a]\nprompt = "lead"\nsubagents = [{name = "writer"}]',
    "%%thread boss\ngo",
]


def test_a_parent_says_what_goes_on_below_it(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        open_and_run(lab, page, CELLS, "tree.ipynb")
        view = page.locator(".jp-Notebook .jp-Cell").nth(len(CELLS) - 1)
        below = view.locator("[data-testid=progress-below]", has_text="drafting the intro")
        below.first.wait_for(timeout=60_000)
        assert below.first.inner_text() == "1 below: drafting the intro"
        page.screenshot(path=str(lab.root.parent / "tree-progress.png"))
    finally:
        page.close()

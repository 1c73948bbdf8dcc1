"""A tool defined in a cell that raises, in JupyterLab with Chromium: its card shows the
traceback as IPython shows a cell's, "Cell In[n]" with the cell's own number and line and the
source line there, not the runtime's frames. Screenshots light and dark."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import open_and_run, open_card
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    '%%tool\ndef lookup(state, key: str) -> str:\n    """Look a key up."""\n'
    '    table = {"tea": "green"}\n    return table[key]',
    "%%prompt looker --tools lookup\nLook it up.",
    "%%thread looker\ncoffee",
]


def test_a_failed_calls_card_shows_the_cells_traceback(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "traceback-failure.png") as (page, shots):
        open_and_run(lab, page, CELLS, "traceback.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(3)
        card = cell.locator("[data-testid=tool-card]").first
        card.wait_for(timeout=90_000)
        cell.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
        open_card(card)
        trace = card.locator("[data-testid=tool-traceback]").inner_text()
        # the cell holding the tool is the second run, its `return` on line 5 of the cell
        assert "Cell In[2], line 5, in lookup\n    return table[key]" in trace
        assert trace.endswith("KeyError: 'coffee'")
        assert "threadlab" not in trace  # the runtime's own frames are left out
        in_both_themes(page, shots / "traceback", show=lambda: centre(card))
        print(f"screenshots: {shots}")

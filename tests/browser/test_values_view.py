"""Long and nested values in a card, in JupyterLab with Chromium: a 200-row list argument is
a JSON tree that opens its first rows (more on request), a JSON result is a tree too, and a
long value's box is capped in height until "show all"."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run, open_card
from .themes import in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl\nfrom threadlab.models import call, text",
    '%%tool\ndef tally(state, rows: list) -> str:\n    """Count the rows."""\n'
    '    import json\n    return json.dumps({"count": len(rows), "first": rows[0]})',
    "rows = [{'n': i, 'name': f'row {i}'} for i in range(200)]\n"
    "model = tl.models.ScriptedModel([call('tally', {'rows': rows}), text('counted')])\n"
    "tl.define_prompt('counter', prompt='Count.', tools=['tally'], model=model)",
    "%%thread counter\ncount them",
]


def test_nested_and_long_values_read_as_trees_with_a_cap(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    shots = lab.root.parent / "values"
    shots.mkdir(exist_ok=True)
    try:
        open_and_run(lab, page, CELLS, "values.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(3)
        view = cell.locator("[data-threadlab=live] [data-testid=inspector]:visible")
        view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
        card = view.locator("[data-testid=tool-card]").first
        open_card(card)
        args = card.locator("[data-testid=tool-args]")
        rows = args.locator("[data-testid=json-node]").first
        assert rows.locator("summary").first.inner_text() == "rows: [200 items]"
        assert rows.get_attribute("open") is not None
        shown = rows.locator(":scope > .tl-json-children > [data-testid=json-node]")
        assert shown.count() == 50  # the first rows; each row a closed tree of its own
        assert shown.first.get_attribute("open") is None
        shown.first.locator("summary").click()
        assert 'name: "row 0"' in shown.first.inner_text()
        args.locator("button", has_text="150 more").click()
        assert shown.count() == 200
        # The box is capped until "show all".
        height = args.evaluate("e => e.getBoundingClientRect().height")
        assert height <= 210  # 200px and its padding
        card.locator("[data-testid=show-all]").first.click()
        assert args.evaluate("e => e.getBoundingClientRect().height") > 4 * height
        # A JSON result is a tree too.
        result = card.locator("[data-testid=tool-result]")
        assert "count: 200" in result.inner_text()
        card.evaluate("e => e.scrollIntoView({block: 'start'})")
        in_both_themes(page, shots / "values")
    finally:
        page.close()

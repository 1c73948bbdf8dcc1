"""The timeline, in JupyterLab with Chromium: a run's model steps and tool calls on a time
axis, a lane per thread with the subagent under its lead, latency, tokens and cost in each
bar's tooltip; it opens from the inspector's header and reads the same from the file."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run
from .themes import in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport asyncio",
    '%%tool\nasync def nap(state, seconds: float) -> str:\n    """Rest a while."""\n'
    "    await asyncio.sleep(0.4)\n    return 'rested'",
    "%%prompt helper --tools nap\nWork.",
    '%%agent crew\n[side_a]\nprompt = "helper"',
    "%%prompt lead\nDelegate.",
    '%%agent team\n[side_a]\nprompt = "lead"\n[[side_a.subagents]]\nname = "crew"',
    "%%thread team\nget some rest",
]


def test_the_timeline_lays_out_steps_and_calls_per_thread(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    shots = lab.root.parent / "timeline"
    shots.mkdir(exist_ok=True)
    try:
        open_and_run(lab, page, CELLS, "timeline.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(6)
        view = cell.locator("[data-threadlab=live] [data-testid=inspector]:visible")
        view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=90_000)
        timeline = view.locator("[data-testid=timeline]")
        assert timeline.get_attribute("open") is None  # closed until asked for
        timeline.locator("summary").click()
        head = timeline.locator("summary").inner_text()
        assert "model steps" in head
        assert "calls" in head
        lanes = timeline.locator("[data-testid=timeline-lane]")
        assert lanes.count() >= 2  # the lead and its subagent
        assert "crew" in lanes.nth(1).inner_text()
        nap = timeline.locator("[data-testid=timeline-call]", has_text="nap").first
        title = nap.get_attribute("title") or ""
        assert title.startswith("nap")
        assert " ms · success" in title
        step = timeline.locator("[data-testid=timeline-step]").first
        assert (step.get_attribute("title") or "").startswith("model step · ")
        # Bars sit on the axis in order: the subagent's nap starts after the lead's first step.
        first_step = step.bounding_box()
        nap_box = nap.bounding_box()
        assert first_step is not None
        assert nap_box is not None
        assert nap_box["x"] >= first_step["x"]
        assert timeline.get_attribute("open") is not None
        timeline.evaluate("e => e.scrollIntoView({block: 'start'})")
        in_both_themes(page, shots / "timeline")
    finally:
        page.close()

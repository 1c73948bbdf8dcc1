"""Costs in the live inspector, in JupyterLab with Chromium: each priced step shows its cost,
the header the run's total, the subagent tree each child's total. Screenshots in both themes."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

MODEL = '''
import threadlab as tl
from threadlab.models import FinishChunk, ReasoningChunk, TextChunk, ToolCallChunk

class Priced:
    """Steps with usage, said to come from OpenAI's API: priced from the tables."""
    class endpoint:
        base_url = None
    provider = "openai"
    def __init__(self, model):
        self.name = self.model = model
    async def stream(self, request):
        if not any(m.role == "tool" for m in request.messages):
            yield ReasoningChunk(0, "Ping first, then answer.", api="openai")
            yield ToolCallChunk(0, id="call_p", name="ping", arguments="{}")
            yield FinishChunk(usage={"input_tokens": 12000, "output_tokens": 800})
        else:
            yield TextChunk("pong it is")
            yield FinishChunk(usage={"input_tokens": 13000, "output_tokens": 50,
                                     "cached_tokens": 9000})

tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong")
tl.define_prompt("p", prompt="t", model=Priced("gpt-4o"), tools=["ping"])
tl.define_agent("pinger", side_a="p")
create = tl.models.call("subagent_create", {"agent": "pinger", "name": "c", "message": "ping"})
tl.define_prompt("lead", prompt="Lead.",
                 model=tl.models.ScriptedModel([create, tl.models.text("all pinged")]));
'''
AGENT = """%%agent boss
[side_a]
prompt = "lead"
subagents = [{name = "pinger"}]
"""
CELLS = ["%load_ext threadlab", MODEL, AGENT, "%%thread boss --live\nping them"]


def test_costs_show_per_step_run_and_subagent(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    shots = lab.root.parent / "shots"
    shots.mkdir(exist_ok=True)
    try:
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_and_run(lab, page, CELLS, "costs.ipynb")
        view = page.locator(".jp-Notebook .jp-Cell").nth(3).locator("[data-testid=inspector]")
        view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
        header = view.locator("[data-testid=run-usage]").inner_text()
        assert "25,000 in / 850 out / 9,000 cached tokens · $0.0" in header
        total = header.rsplit("· ", 1)[1]
        tree = view.locator("[data-testid=thread-cost]")
        assert [t.inner_text().strip() for t in tree.all()] == [total, total]  # boss, child
        view.locator("[data-testid=tree-node][data-thread]").nth(1).click()  # the child
        steps = view.locator("[data-testid=step-cost]")
        steps.first.wait_for(timeout=30_000)
        assert steps.count() == 2
        assert all(s.inner_text().startswith(" · $0.0") for s in steps.all())
        # The first step's thinking and what it was sent, each closed until opened.
        thinking = view.locator("[data-testid=thinking]")
        assert thinking.count() == 1
        thinking.locator("summary").click()
        assert "Ping first, then answer." in thinking.inner_text()
        request = view.locator("[data-testid=step-request]").first
        request.locator("summary").click()
        request.locator("pre", has_text="user: ping").wait_for(timeout=30_000)
        assert request.locator("pre").inner_text().splitlines() == [
            "system: t",
            "user: ping",
            "tools: ping (tool_choice auto, parallel calls no)",
        ]
        assert thinking.get_attribute("open") is not None  # still open after the redraw
        in_both_themes(page, shots / "costs", show=lambda: centre(view))
        assert errors == []
    except Exception:
        page.screenshot(path=str(shots / "costs-failure.png"), full_page=True)
        raise
    finally:
        page.close()

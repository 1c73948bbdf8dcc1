"""The definitions as a picture, in JupyterLab with Chromium: `%threadlab graph studio` draws
the agent, its prompts, tools and subagent; clicking a node shows its definition. Screenshots
in both themes, one with a definition open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import open_and_run
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    "%%tool --progress description --variable DEPLOY_TOKEN:secret:required\n"
    "def deploy(state, description: str, site: str) -> str:\n"
    '    """Put a site online."""\n    return f"deployed {site}"',
    "%%tool\ndef write_file(state, path: str, content: str) -> str:\n"
    '    """Write a file."""\n    return f"wrote {path}"',
    "%%prompt builder --tools write_file\nYou build small web pages.",
    "%%prompt lead --tools deploy\nYou lead a small studio.",
    '%%agent studio\n[side_a]\nprompt = "lead"\n[[side_a.subagents]]\n'
    'name = "site_builder"\nmax_instances = 2',
    '%%agent site_builder\n[side_a]\nprompt = "builder"',
    "%threadlab graph studio",
    "%threadlab graph builder",
]
GRAPH, PROMPT_GRAPH = len(CELLS) - 2, len(CELLS) - 1


def test_the_graph_draws_and_a_click_shows_a_definition(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "graph-failure.png") as (page, shots):
        walk(lab, page, shots)


def walk(lab: Lab, page: Any, shots: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_and_run(lab, page, CELLS, "graph.ipynb")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(GRAPH)
    graph = cell.locator("[data-testid=graph]")
    graph.wait_for(timeout=60_000)
    nodes = graph.locator("[data-testid=graph-node]")
    assert [nodes.nth(i).get_attribute("data-node") for i in range(nodes.count())] == [
        "agent:studio", "prompt:lead", "tool:deploy", "agent:site_builder", "prompt:builder",
        "tool:write_file",
    ]  # fmt: skip
    deploy = graph.locator("[data-node='tool:deploy'] text")
    assert [deploy.nth(i).text_content() for i in range(deploy.count())] == [
        "deploy", "function tool", "progress: description", "DEPLOY_TOKEN · secret",
        "· required",
    ]  # fmt: skip
    # Every text of a node drawn inside it, as Chromium lays it out in the theme's font.
    overflowing = graph.evaluate(
        """(el) => [...el.querySelectorAll("[data-testid=graph-node]")].flatMap((node) => {
          const box = node.querySelector("rect").getBBox();
          return [...node.querySelectorAll("text")]
            .filter((t) => t.getBBox().x + t.getComputedTextLength() > box.x + box.width - 4)
            .map((t) => t.textContent);
        })"""
    )
    assert overflowing == []
    assert "blocking, max 2" in (graph.locator("svg").text_content() or "")
    in_both_themes(page, shots / "graph", show=lambda: centre(graph))
    graph.locator("[data-node='prompt:lead']").click()
    pane = graph.locator("[data-testid=graph-definition]")
    assert pane.inner_text().startswith("lead · prompt")
    assert "You lead a small studio." in pane.locator("pre").inner_text()
    graph.locator("[data-node='tool:deploy']").click()
    assert "progress argument: description" in pane.locator("pre").inner_text()
    in_both_themes(page, shots / "graph-definition", show=lambda: centre(graph))
    # A prompt with no agent: its nodes start at the svg's left, not after an empty column.
    builder = page.locator(".jp-Notebook .jp-Cell").nth(PROMPT_GRAPH)
    drawn = builder.locator("[data-testid=graph] svg")
    drawn.wait_for(timeout=60_000)
    gap = drawn.evaluate(
        """(svg) => Math.min(...[...svg.querySelectorAll("[data-testid=graph-node] rect")]
          .map((r) => r.getBoundingClientRect().left)) - svg.getBoundingClientRect().left"""
    )
    assert 0 < gap < 40
    in_both_themes(page, shots / "graph-prompt", show=lambda: centre(drawn))
    assert errors == []

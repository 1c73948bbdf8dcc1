"""A server's form in a card, in JupyterLab with Chromium: a `%%thread` cell keeps running
while an MCP server (the tests' own, over stdio) asks the user for preferences; the form shows
its fields with their defaults, a person changes two and submits, and the call goes on with
their answer. Screenshots of the form and of the answered card, in both themes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import open_and_run
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

SERVER = Path(__file__).resolve().parents[1] / "mcp" / "stdio_server.py"
CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    f'%%mcp local\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\ntools = ["ask"]',
    "%%prompt asker --tools mcp:local\nAsk the user.",
    "%%thread asker\nAsk me.",
]
RUNNING = len(CELLS) - 1


def test_a_servers_form_is_answered_in_the_card(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "elicitation-failure.png") as (page, shots):
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_and_run(lab, page, CELLS, "elicitation-form.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(RUNNING)
        form = cell.locator("[data-testid=elicitation-form]")
        form.wait_for(timeout=90_000)
        assert cell.locator(".jp-InputPrompt").inner_text().strip() == "[*]:"
        assert "local (MCP server): Your preferences?" in form.inner_text()
        assert form.locator("[data-field=colour]").input_value() == "green"  # the defaults
        assert form.locator("[data-field=size]").input_value() == "3"
        form.locator("[data-field=size]").fill("5")
        form.locator("[data-field=confirm]").check()
        in_both_themes(page, shots / "elicitation-asked", show=lambda: centre(form))
        form.locator("[data-testid=form-submit]").click()
        answered = cell.locator(".jp-OutputArea", has_text="colour=green size=5 confirm=True")
        answered.first.wait_for(timeout=60_000)
        page.wait_for_function(
            "(i) => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
            ".querySelector('.jp-InputPrompt').textContent.includes('[4]')",
            arg=RUNNING,
            timeout=60_000,
        )
        assert cell.locator("[data-testid=elicitation-form]").count() == 0  # it gave way
        output = cell.locator(".jp-OutputArea").text_content() or ""
        assert "elicitation" in output  # the card's record of the question and the answer
        for details in cell.locator("details.tl-card").all():
            details.locator(":scope > summary").click()
        in_both_themes(page, shots / "elicitation-after", show=cell.scroll_into_view_if_needed)
        assert errors == []
        print(f"screenshots: {shots}")


GATED = [
    "%load_ext threadlab\nimport threadlab as tl",
    f'%%mcp gated\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\ntools = ["summarise"]\n'
    'approval = "always"\nsampling_model = "offline"',
    "%%prompt summariser --tools mcp:gated\nSummarise what you are given.",
    "%%thread summariser\nSummarise this.",
]


def test_a_gated_servers_sampling_request_is_approved_in_the_card(lab: Lab, browser: Any) -> None:
    """The call waits for Approve; once it runs, the server's request of the model waits
    in the same card, its messages shown as lines, until Submit lets the model answer."""
    with shown_page(lab, browser, "sampling-gate-failure.png") as (page, shots):
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_and_run(lab, page, GATED, "sampling-gate.ipynb")
        cell = page.locator(".jp-Notebook .jp-Cell").nth(len(GATED) - 1)
        cell.locator("[data-testid=decision-bar] [data-testid=approve]").click(timeout=90_000)
        form = cell.locator("[data-testid=elicitation-form]")
        form.wait_for(timeout=90_000)
        ask = form.locator("[data-testid=form-ask]")
        assert "gated (MCP server): may the model offline answer this" in ask.inner_text()
        assert "system: Summarise in a line." in ask.inner_text()
        assert ask.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"
        assert form.locator("[data-field]").count() == 0  # nothing to fill in: allow or not
        in_both_themes(page, shots / "sampling-gate-asked", show=lambda: centre(form))
        form.locator("[data-testid=form-submit]").click()
        cell.locator(".jp-OutputArea", has_text="summary by offline").first.wait_for(timeout=60_000)
        assert cell.locator("[data-testid=elicitation-form]").count() == 0  # it gave way
        in_both_themes(page, shots / "sampling-gate-after", show=cell.scroll_into_view_if_needed)
        assert errors == []
        print(f"screenshots: {shots}")

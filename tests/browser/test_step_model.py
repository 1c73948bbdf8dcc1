"""Step mode before model steps, in JupyterLab with Chromium: `%%thread --step model` pauses
before the model is called, with what it is about to be sent shown; Continue sends each step
(the conversation grows by one step per click) until the run completes. Screenshots of the
pause and of the end, in both themes."""

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
    "%%tool\ndef add(state, a: int, b: int) -> int:\n"
    '    """Add two whole numbers."""\n    return a + b',
    "%%prompt adder --tools add\nYou add numbers with the add tool.",
    "%%thread adder --step model\nWhat is 2 + 3?",
]
RUNNING = len(CELLS) - 1


def test_the_run_pauses_before_each_model_step_and_continue_goes_on(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "step-model-failure.png") as (page, shots):
        walk(lab, page, shots)


def walk(lab: Lab, page: Any, shots: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_and_run(lab, page, CELLS, "step-model.ipynb")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(RUNNING)
    view = cell.locator("[data-testid=inspector]")
    pause = view.locator("[data-testid=model-pause]")

    # 1. Paused before the first model step: nothing was asked of the model yet.
    pause.wait_for(timeout=60_000)
    request = pause.locator("[data-testid=next-request]")
    lines = request.locator("pre").inner_text().splitlines()
    assert lines == [
        "system: You add numbers with the add tool.",
        "user: What is 2 + 3?",
        "tools: add (tool_choice auto, parallel calls no)",
    ]
    assert view.locator("[data-testid=tool-card]").count() == 0
    assert "paused before a model step" in (cell.locator(".jp-OutputArea").text_content() or "")
    # A student predicts the step: the choices are the tools on offer and a text answer.
    choices = pause.locator("[data-testid=step-choice]")
    assert [c.inner_text() for c in choices.all()] == ["add", "(a text answer)"]
    choices.filter(has_text="add").click()
    in_both_themes(page, shots / "step-model-paused", show=lambda: centre(pause))

    # 2. Continue: the model step runs (its call too), and the run pauses before the next;
    # the prediction is revealed and scored.
    pause.locator("[data-testid=step-continue]").click()
    reveal = view.locator("[data-testid=step-reveal]")
    reveal.wait_for(timeout=60_000)
    assert reveal.inner_text().split("\n")[0].startswith("✓ right: add"), reveal.inner_text()
    assert "score 1 / 1" in reveal.inner_text()
    view.locator("[data-testid=tool-card]").first.wait_for(timeout=60_000)
    pause.wait_for(timeout=60_000)
    page.wait_for_function(
        "(el) => el.textContent.includes('tool (call_')",
        arg=pause.locator("[data-testid=next-request] pre").element_handle(),
        timeout=60_000,
    )
    assert "assistant:" in pause.locator("[data-testid=next-request] pre").inner_text()
    assert pause.locator("[data-testid=step-continue]").is_enabled()

    # 3. Continue again (a wrong guess first): the model answers and the run completes; no
    # pause is left, the reveal and the score stay.
    pause.locator("[data-testid=step-choice]").filter(has_text="add").click()
    pause.locator("[data-testid=step-continue]").click()
    view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
    assert pause.count() == 0
    # The offline model took its arguments from the question: 2 + 3 reads as 5.
    assert "add returned: 5" in view.locator("[data-testid=conversation]").inner_text()
    page.wait_for_function(
        "(el) => /score 1 \\/ 2/.test(el.textContent)", arg=reveal.element_handle(), timeout=30_000
    )
    assert "✗ you said add; it chose (a text answer)" in reveal.inner_text()
    in_both_themes(page, shots / "step-model-done", show=lambda: centre(view))
    assert errors == []

"""Decisions in cards, in JupyterLab with Chromium: a `%%thread` cell keeps running while a
call that needs a decision waits in its card; a person approves one call, edits another's
arguments (JSON checked in the page, the schema by the kernel, before anything is recorded)
and rejects a third, and the run goes on after each click. Screenshots before and after, in
both themes."""

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
    '%%tool --approval always\ndef delete_file(state, path: str) -> str:\n    """Delete a file."""'
    '\n    return f"deleted {path}"',
    '%%tool --approval always\ndef move_file(state, path: str) -> str:\n    """Move a file away."""'
    '\n    return f"moved {path}"',
    '%%tool --approval always\ndef wipe_cache(state, path: str) -> str:\n    """Empty a cache."""'
    '\n    return f"wiped {path}"',
    "%%prompt janitor --tools delete_file,move_file,wipe_cache\nTidy the workspace.",
    "%%thread janitor\nTidy up.",
]
RUNNING = len(CELLS) - 1


def test_approve_edit_and_reject_in_the_cards(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "approval-failure.png") as (page, shots):
        walk(lab, page, shots)


def walk(lab: Lab, page: Any, shots: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_and_run(lab, page, CELLS, "approvals-cards.ipynb")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(RUNNING)
    view = cell.locator("[data-testid=inspector]")
    bar = view.locator("[data-testid=decision-bar]")

    # 1. The first call waits in its card; the cell is still running.
    bar.first.wait_for(timeout=60_000)
    assert bar.count() == 1
    assert cell.locator(".jp-InputPrompt").inner_text().strip() == "[*]:"
    assert "waits for your decision" in bar.first.inner_text()
    first = bar.first.get_attribute("data-call")
    card = view.locator(f"[data-testid=tool-card][data-call='{first}']")
    assert card.get_attribute("data-status") == "waiting"
    # Its arguments read as `name: value` lines (not JSON), with a copy button beside them.
    card.locator("summary").click()
    shown = card.locator("[data-testid=tool-args]").inner_text()
    assert shown.startswith("path: /"), shown
    assert "{" not in shown
    assert card.locator("[data-testid=copy]").count() == 1
    in_both_themes(page, shots / "approval-asked", show=lambda: centre(bar.first))
    timed = click_timed(page, str(first), "approve")
    # No timing assert (machines are noisy): the figures go to benchmarks/README.md.
    print(f"approve: deciding… after {timed['deciding']:.0f} ms, started after"
          f" {timed['started']:.0f} ms")  # fmt: skip
    assert timed["disabled"]  # the buttons were disabled with the "deciding…" state

    # 2. The next one: its arguments edited; bad JSON and a wrong type are refused first.
    second = next_question(view, {first})
    asked = view.locator(f"[data-testid=decision-bar][data-call='{second}']")
    asked.locator("[data-testid=edit-arguments]").click()
    editor = asked.locator("[data-testid=decide-editor]")
    assert '"path"' in editor.input_value()  # the call's own arguments, as JSON
    editor.fill('{"path": ')
    asked.locator("[data-testid=approve-edited]").click()
    assert "not JSON" in asked.locator("[data-testid=decide-error]").inner_text()
    editor.fill('{"path": 3}')
    asked.locator("[data-testid=approve-edited]").click()
    asked.locator("[data-testid=decide-error]", has_text="invalid arguments").wait_for(
        timeout=30_000
    )
    assert asked.locator("[data-testid=approve]").is_enabled()  # nothing decided yet
    editor.fill('{"path": "/tmp/keep-this.txt"}')
    centre(asked)
    page.screenshot(path=str(shots / "approval-editing-light.png"))
    asked.locator("[data-testid=approve-edited]").click()

    # 3. The last one: rejected with a reason.
    third = next_question(view, {first, second})
    asked = view.locator(f"[data-testid=decision-bar][data-call='{third}']")
    asked.locator("[data-testid=reject-reason]").fill("not today")
    timed = click_timed(page, third, "reject")
    print(f"reject: deciding… after {timed['deciding']:.0f} ms, started after"
          f" {timed['started']:.0f} ms")  # fmt: skip

    # After: the run completed; each card says what was decided (the frozen view too).
    done = cell.locator(".jp-OutputArea-output", has_text="rejected: not today")
    done.first.wait_for(timeout=60_000)
    page.wait_for_function(
        "(i) => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
        ".querySelector('.jp-InputPrompt').textContent.includes('[6]')",
        arg=RUNNING,
        timeout=60_000,
    )
    output = cell.locator(".jp-OutputArea").text_content() or ""  # closed cards' too
    assert (
        "moved /tmp/keep-this.txt" in output
        or "deleted /tmp/keep-this.txt" in output
        or ("wiped /tmp/keep-this.txt" in output)
    )
    assert 'approved with edited arguments {"path": "/tmp/keep-this.txt"} (in the view)' in output
    # The edited card shows what ran, and the model's proposal struck through beneath it.
    edited = view.locator(f"[data-testid=tool-card][data-call='{second}']")
    if edited.count():  # the live view (a frozen one is checked in the output's text)
        edited.locator("summary").click()
        assert "/tmp/keep-this.txt" in edited.locator("[data-testid=tool-args]").inner_text()
        assert "/tmp/keep-this.txt" in edited.locator("[data-testid=tool-label]").inner_text()
        struck = edited.locator("[data-testid=edited-from]")
        assert "edited from the model's proposal" in struck.inner_text()
        assert "keep-this" not in struck.inner_text()
    assert "edited from the model's proposal" in output
    assert "completed" in output
    cell.scroll_into_view_if_needed()
    for details in cell.locator("details.threadlab-card").all():
        details.locator("summary").click()  # open the cards to show their decisions
    in_both_themes(page, shots / "approval-after", show=cell.scroll_into_view_if_needed)
    assert errors == []


def next_question(view: Any, answered: set[str]) -> str:
    """The call id of the next card that asks, once the previous decision took effect."""
    bar = view.locator("[data-testid=decision-bar]")
    for _ in range(600):
        calls = {bar.nth(i).get_attribute("data-call") for i in range(bar.count())}
        fresh = {c for c in calls if c and c not in answered}
        if fresh:
            (call,) = fresh
            return str(call)
        view.page.wait_for_timeout(100)
    raise AssertionError("no next question")


CLICK_TIMED = """([call, button]) => new Promise((resolve) => {
  const bar = () => document.querySelector(`[data-testid=decision-bar][data-call='${call}']`);
  const card = () => document.querySelector(`[data-testid=tool-card][data-call='${call}']`);
  const out = { deciding: null, started: null, disabled: false };
  const t0 = performance.now();
  const look = () => {
    const b = bar();
    if (out.deciding === null && b && /deciding/.test(b.textContent)) {
      out.deciding = performance.now() - t0;
      out.disabled = [...b.querySelectorAll("button")].every((x) => x.disabled);
    }
    const status = card()?.getAttribute("data-status");
    if (out.started === null && status && status !== "waiting") {
      out.started = performance.now() - t0;
    }
    if (out.deciding !== null && out.started !== null) { observer.disconnect(); resolve(out); }
  };
  const observer = new MutationObserver(look);
  observer.observe(document.body, { subtree: true, childList: true, attributes: true,
                                    characterData: true });
  setTimeout(() => { observer.disconnect(); resolve(out); }, 20000);
  bar().querySelector(`[data-testid=${button}]`).click();
  look();
})"""


def click_timed(page: Any, call: str, button: str) -> dict[str, Any]:
    """Click `button` in the decision bar of `call`; the milliseconds from the click to the
    bar saying "deciding…" (buttons disabled) and to the card leaving "waiting"."""
    timed: dict[str, Any] = page.evaluate(CLICK_TIMED, [call, button])
    assert timed["deciding"] is not None, timed
    assert timed["started"] is not None, timed
    return timed

"""The player, in JupyterLab with Chromium: a lead thread and its subagent stepped back and
forth with the scrubber, the buttons and the arrow keys; at three points the conversation,
the files and the subagent tree are those of the stored history there (the kernel's
`thread.snapshot`); "explain" tells the step. Screenshots in both themes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import open_and_run
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

HAND_IN = (
    "%%tool\nasync def hand_in(state, summary: str) -> tl.ToolResult:\n"
    '    """Hand in the pages you wrote."""\n'
    "    pages = tuple(f.path for f in await state.list_files())\n"
    "    return tl.ToolResult(result=summary, attachments=pages)"
)
WRITE_FILE = (
    "%%tool --progress description\n"
    "async def write_file(state, description: str, path: str, content: str) -> str:\n"
    '    """Write a file."""\n'
    "    await state.write_file(path, content)\n"
    '    return f"wrote {path}"'
)
PICKS = """import json
thread = next(t for t in tl.Runtime().threads() if t.agent == "studio")
points = thread.history_points()
child = thread.children[0].id
first = 0
during = next(i for i, p in enumerate(points) if p.thread_id == child and p.kind == "file_written")
after = next(i for i, p in enumerate(points) if p.kind == "tool_call_finished"
             and p.thread_id == thread.id)
for at in (first, during, after):
    snap = thread.snapshot(at)
    print("PICK " + json.dumps({"at": at, "thread": points[at].thread_id, "lead": thread.id,
          "messages": [m.id for m in snap.messages], "files": sorted(snap.files),
          "children": [[c.reference, c.status] for c in snap.children]}))
tl.player(thread)"""
CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    WRITE_FILE,
    HAND_IN,
    "%%prompt builder --tools write_file\nYou build small web pages.",
    "%%prompt critic\nYou review pages.",
    '%%agent site_builder\ntype = "dual_ai"\nmax_session_turns = 4\n[side_a]\n'
    'prompt = "builder"\nsession_stop = "hand_in"\n[side_b]\nprompt = "critic"',
    "%%prompt lead\nYou delegate page building.",
    '%%agent studio\n[side_a]\nprompt = "lead"\n[[side_a.subagents]]\nname = "site_builder"',
    "%%thread studio\nWe need a page about oolong.",
    PICKS,
]
PLAYER = len(CELLS) - 1


def test_scrubbing_shows_the_stored_history_at_each_point(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "player-failure.png") as (page, shots):
        walk(lab, page, shots)


def walk(lab: Lab, page: Any, shots: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_and_run(lab, page, CELLS, "player.ipynb")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(PLAYER)
    player = cell.locator("[data-testid=player]")
    player.wait_for(timeout=90_000)
    printed = cell.locator(".jp-OutputArea").inner_text()
    picks = [json.loads(line[5:]) for line in printed.splitlines() if line.startswith("PICK ")]
    assert len(picks) == 3
    where = player.locator("[data-testid=player-where]")
    total = int(where.inner_text().split(" / ")[1].split(" ")[0])
    assert where.inner_text().startswith(f"{total} / {total}")  # it opens at the end
    for pick in picks:
        player.locator("[data-testid=player-scrubber]").fill(str(pick["at"]))
        assert where.inner_text().startswith(f"{pick['at'] + 1} / {total}")
        check(player, pick)
    # Back and forward one point, with the buttons and with the keys.
    at = picks[1]["at"]
    player.locator("[data-testid=player-scrubber]").fill(str(at))
    player.locator("[data-testid=player-back]").click()
    assert where.inner_text().startswith(f"{at} / {total}")
    player.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert where.inner_text().startswith(f"{at + 2} / {total}")
    # The child at work: its card in the lead still running, the child "running" in the tree.
    player.locator("[data-testid=player-scrubber]").fill(str(at))
    player.locator("[data-testid=player-explain-toggle]").check()
    in_both_themes(page, shots / "player-during", show=lambda: centre(player))
    player.locator("[data-testid=player-scrubber]").fill("0")
    told = player.locator("[data-testid=player-explain]").inner_text()
    assert told.startswith("The user's message.")
    player.locator("[data-testid=player-last]").click()
    in_both_themes(page, shots / "player-end", show=lambda: centre(player))
    predict(page, player, shots)
    step_through(page, shots)
    fork_from_here(player, picks[1])
    cell = page.locator(".jp-Notebook .jp-Cell").nth(PLAYER)
    in_both_themes(page, shots / "player-forked", show=lambda: centre(cell))
    assert errors == []


def predict(page: Any, player: Any, shots: Path) -> None:
    """Predict mode: a step forward onto a model step asks what the model does, offering
    the tools it was given; the choice is revealed and scored."""
    player.locator("[data-testid=player-explain-toggle]").uncheck()
    player.locator("[data-testid=player-predict-toggle]").check()
    player.locator("[data-testid=player-first]").click()
    forward = player.locator("[data-testid=player-forward]")
    choices = player.locator("[data-testid=player-choice]")
    for _ in range(20):
        forward.click()
        if choices.count():
            break
    offered = [c.inner_text() for c in choices.all()]
    assert "(a text answer)" in offered
    assert "subagent_create" in offered
    in_both_themes(page, shots / "player-predict", show=lambda: centre(player))
    choices.filter(has_text="subagent_create").click()
    reveal = player.locator("[data-testid=player-reveal]").inner_text()
    score = player.locator("[data-testid=player-score]").inner_text()
    assert (reveal.startswith("✓"), score) == (True, "score 1 / 1"), (reveal, score)
    player.locator("[data-testid=player-predict-toggle]").uncheck()


def step_through(page: Any, shots: Path) -> None:
    """ "Step through" on the run's own view: the player in its place, then back."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(PLAYER - 1)
    # With the keyboard: Enter on "step through", then the arrow keys step the player at once.
    cell.locator("[data-testid=step-through]").focus()
    page.keyboard.press("Enter")
    player = cell.locator("[data-testid=player]")
    player.wait_for(timeout=30_000)
    where = player.locator("[data-testid=player-where]")
    page.wait_for_function(
        "() => document.activeElement?.getAttribute('data-testid') === 'player'", timeout=10_000
    )
    shown = where.inner_text().split(" · ")[0].split(" / ")
    assert shown[0] == shown[1]  # at the end of the history
    page.keyboard.press("ArrowLeft")
    assert where.inner_text().split(" / ")[0] == str(int(shown[0]) - 1)
    player.locator("[data-testid=player-first]").click()
    in_both_themes(page, shots / "step-through", show=lambda: centre(player))
    player.locator("[data-testid=player-close]").focus()
    page.keyboard.press("Enter")
    cell.locator("[data-testid=inspector] [data-testid=step-through]").wait_for(timeout=10_000)
    assert cell.locator("[data-testid=player]").count() == 0
    # The keyboard is back on "step through", where it came from.
    page.wait_for_function(
        "() => document.activeElement?.getAttribute('data-testid') === 'step-through'",
        timeout=10_000,
    )


def fork_from_here(player: Any, pick: dict[str, Any]) -> None:
    """ "Fork from here" at the child's point: a branch of the lead, shown as it runs and
    after, in the player's place."""
    player.locator("[data-testid=player-scrubber]").fill(str(pick["at"]))
    player.locator("[data-testid=player-fork]").click()
    page = player.page
    cell = page.locator(".jp-Notebook .jp-Cell").nth(PLAYER)
    page.wait_for_function(
        "([cell, lead]) => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[cell]"
        ".querySelector('[data-testid=inspector] .tl-header code');"
        " return c && c.textContent && c.textContent !== lead; }",
        arg=[PLAYER, pick["lead"]],
        timeout=60_000,
    )
    assert cell.locator("[data-testid=player]").count() == 0
    status = cell.locator("[data-testid=run-status]").first
    page.wait_for_function(
        "(cell) => !/running/.test(document.querySelectorAll('.jp-Notebook .jp-Cell')[cell]"
        ".querySelector('[data-testid=run-status]').textContent)",
        arg=PLAYER,
        timeout=60_000,
    )
    assert status.inner_text() in ("completed", "failed", "waiting"), status.inner_text()


def check(player: Any, pick: dict[str, Any]) -> None:
    """The player at `pick` shows what the stored history held there."""
    stage = player.locator("[data-testid=inspector]")
    statuses = {
        node.get_attribute("data-thread"): node.locator(".tl-status").inner_text()
        for node in stage.locator("[data-testid=tree-node]").all()
    }
    # The tree: the lead and the children it had then, each with its status then.
    assert set(statuses) == {pick["lead"], *(child for child, _ in pick["children"])}
    for child, status in pick["children"]:
        assert statuses[child] == status, (pick, statuses)
    shown_thread = stage.locator("[data-testid=tree-node].tl-selected").get_attribute("data-thread")
    assert shown_thread == pick["thread"]
    if shown_thread != pick["lead"]:
        return  # a child's point: its own conversation is shown, the lead's cut is in the tree
    shown = [e.get_attribute("data-message") for e in stage.locator("[data-message]").all()]
    assert set(shown) <= set(pick["messages"]), (shown, pick)
    files = [e.get_attribute("data-path") for e in stage.locator("[data-testid=file]").all()]
    assert files == pick["files"], (files, pick)

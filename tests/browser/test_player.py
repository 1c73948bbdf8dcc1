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
    assert errors == []


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

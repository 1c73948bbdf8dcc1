"""The player as a teacher steps through a class's run, in JupyterLab with Chromium: the ← / →
keys step it whichever of its parts was clicked last, and never reach the notebook (no other
cell becomes active, no section folds); on a long thread the step it is at comes into sight;
at a past point it shows each thread's variables then (a secret only as `[secret:NAME]`), no
call's clock ticks, and a run paused before a model step counts no model time; its words
read right. Screenshots in both themes, during and after stepping."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from .conftest import Lab, shown_page
from .test_lab import run_cell
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

SECRET = "sk-class-secret-5190"

SETUP = """%load_ext threadlab
import asyncio, json
import threadlab as tl
from threadlab.models import ScriptedModel, call, text
SECRET = open("class-secret.txt").read().strip()"""

TOOLS = '''@tl.tool
async def write_page(state: tl.ThreadState, path: str, content: str) -> str:
    """Write a page."""
    await state.set_env("DRAFT", path, "text")
    await state.write_file(path, content)
    return f"wrote {path}"


@tl.tool
async def note(state: tl.ThreadState, text: str) -> str:
    """Note something down."""
    await state.set_env("LAST_NOTE", text, "text")
    return f"noted {text}"'''

# Two children asked for by one name (the second is "page_builder-1-2"), then thirty notes:
# a conversation longer than the window.
DEFINITIONS = """pages = [call("write_page", {"path": f"/{tea}.html", "content": f"<h1>{tea}</h1>"})
         for tea in ("oolong", "sencha")]
built = ScriptedModel([pages[0], text("oolong done"), pages[1], text("sencha done")])
tl.define_prompt("builder", prompt="You build pages.", tools=["write_page"], model=built)
tl.define_agent("site_builder", side_a="builder")
made = [call("subagent_create", {"agent": "site_builder", "name": "page_builder-1",
                                 "message": f"A page about {tea}."})
        for tea in ("oolong", "sencha")]
notes = [call("note", {"text": f"note {i}"}) for i in range(1, 31)]
tl.define_prompt("lead", prompt="You delegate page building.", tools=["note"],
                 model=ScriptedModel([*made, *notes, text("Both pages are written.")]))
tl.define_agent("studio", side_a=tl.Side("lead", subagents=[tl.Subagent("site_builder")]))
tl.define_prompt("solo", prompt="Answer.", tools=["note"],
                 model=ScriptedModel([call("note", {"text": "tea"}), text("Tea it is.")]))"""

RUN = """rt = tl.Runtime()
studio = await rt.create_thread("studio", env={"TOPIC": "oolong"}, secrets={"API_KEY": SECRET})
print((await studio.send("We need two tea pages.")).status)"""

PLAYER = """points = studio.history_points()
child = studio.children[0]
during = next(i for i, p in enumerate(points) if p.thread_id == child.id
              and p.kind == "file_written")
noted = [i for i, p in enumerate(points) if p.thread_id == studio.id
         and p.kind == "tool_call_finished"][12]
child_at = next(j for j, p in enumerate(child.history_points()) if p.seq == points[during].seq)
print("PICK " + json.dumps({
    "during": during, "noted": noted, "lead": studio.id, "child": child.id,
    "lead_during": studio.snapshot(during).env, "child_during": child.snapshot(child_at).env,
    "lead_noted": studio.snapshot(noted).env}))
tl.player(studio)"""

# Paused before its first model step for two seconds (step mode), then resumed.
PAUSED = """solo = await rt.create_thread("solo")
await solo.send("Which tea?", step="model")
await asyncio.sleep(2)
print((await solo.resume()).status)
tl.player(solo)"""

CELLS = ["# The class's run\n\nStep through it below.", SETUP, TOOLS, DEFINITIONS, RUN, PLAYER,
         PAUSED]  # fmt: skip
STUDIO, SOLO = 5, 6


@pytest.fixture(scope="module")
def opened(lab: Lab, browser: Any) -> Iterator[tuple[Any, Path, dict[str, Any]]]:
    """The notebook run once: its page, the folder for screenshots and what the kernel
    printed of the studio's history."""
    (lab.root / "class-secret.txt").write_text(SECRET)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}  # fmt: skip
    notebook.cells = [nbformat.v4.new_markdown_cell(CELLS[0])]
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in CELLS[1:]]
    nbformat.write(notebook, lab.root / "stepping.ipynb")
    with shown_page(lab, browser, "player-stepping-failure.png") as (page, shots):
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(lab.notebook_url("stepping.ipynb"))
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        news = page.locator(".jp-Notification-Toast-Close")
        if news.count():
            news.first.click()
        for index in range(1, len(CELLS)):
            run_cell(page, index)
        for index in (STUDIO, SOLO):
            cell(page, index).locator("[data-testid=player]").wait_for(timeout=90_000)
        printed = cell(page, STUDIO).locator(".jp-OutputArea").inner_text()
        (pick,) = [json.loads(line[5:]) for line in printed.splitlines() if line[:5] == "PICK "]
        # The variables come with the narration, once the cell has shown the player.
        for index in (STUDIO, SOLO):
            cell(page, index).locator("[data-testid=player-variable]").first.wait_for()
        yield page, shots, pick
        assert errors == []


def cell(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def where(player: Any) -> str:
    """Where the player is: "12 / 80 · assistant calls note"."""
    return str(player.locator("[data-testid=player-where]").inner_text())


def at(player: Any) -> int:
    """The point the player is at (from 0)."""
    return int(where(player).split(" / ")[0]) - 1


def scrub(player: Any, point: int) -> None:
    player.locator("[data-testid=player-scrubber]").fill(str(point))


def notebook_state(page: Any) -> dict[str, Any]:
    """Which cell is active, which headings are folded, and where the focus is."""
    state: dict[str, Any] = page.evaluate(
        """() => ({
          active: [...document.querySelectorAll('.jp-Notebook .jp-Cell')]
            .findIndex((c) => c.classList.contains('jp-mod-active')),
          folded: document.querySelectorAll(
            '.jp-collapseHeadingButton[data-heading-collapsed=true]').length,
          inPlayer: !!document.activeElement.closest('[data-testid=player]'),
        })"""
    )
    return state


def variables(player: Any) -> dict[str, dict[str, str]]:
    """The variables the player shows, by thread."""
    shown: dict[str, dict[str, str]] = {}
    for variable in player.locator("[data-testid=player-variable]").all():
        name, value = variable.inner_text().split(" = ", 1)
        shown.setdefault(variable.get_attribute("data-thread"), {})[name] = value
    return shown


def test_the_arrow_keys_step_the_player_whichever_part_was_clicked(opened: Any) -> None:
    page, _, pick = opened
    player = cell(page, STUDIO).locator("[data-testid=player]")
    scrub(player, pick["noted"])
    parts = {
        "◀": player.locator("[data-testid=player-back]"),
        "the scrubber": player.locator("[data-testid=player-scrubber]"),
        "▶": player.locator("[data-testid=player-forward]"),
        "a blank part": player.locator("[data-testid=player-where]"),
    }
    for name, part in parts.items():
        part.click()
        before, start = notebook_state(page), at(player)
        assert before["inPlayer"], name
        for key in ("ArrowLeft", "ArrowLeft", "ArrowRight"):
            page.keyboard.press(key)
        # Stepped, and the notebook heard nothing: the same cell is active, no heading folded.
        assert at(player) == start - 1, name
        assert notebook_state(page) == before, name
        assert player.is_visible(), name


def test_stepping_brings_the_step_it_is_at_into_sight(opened: Any) -> None:
    page, shots, _ = opened
    player = cell(page, STUDIO).locator("[data-testid=player]")
    player.locator("[data-testid=player-last]").click()
    bar = player.locator(".tl-player-bar").first
    bar.evaluate("e => e.scrollIntoView({block: 'start'})")
    player.locator("[data-testid=player-back]").click()
    height = page.viewport_size["height"]
    checked = 0
    for _ in range(12):
        page.keyboard.press("ArrowLeft")
        if not player.locator(".tl-current").count():
            continue  # a point with nothing drawn of its own (a call's end, a result)
        checked += 1
        box = player.locator(".tl-current").first.bounding_box()
        assert box is not None
        assert box["y"] >= 0, box
        assert box["y"] + box["height"] <= height, box
        # The controls that moved it are still in sight, and the page itself never moves.
        controls = bar.bounding_box()
        assert controls is not None
        assert controls["y"] >= 0, controls
        assert page.evaluate("() => document.scrollingElement.scrollTop") == 0
    assert checked >= 4
    # A step back to one in sight moves nothing around the player.
    scroller = ".jp-NotebookPanel .jp-WindowedPanel-outer"
    before = page.evaluate(f"() => document.querySelector('{scroller}').scrollTop")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(f"() => document.querySelector('{scroller}').scrollTop") == before
    in_both_themes(page, shots / "player-long-stepped")


def test_a_past_point_shows_the_variables_then_and_no_clock_ticks(opened: Any) -> None:
    page, shots, pick = opened
    player = cell(page, STUDIO).locator("[data-testid=player]")
    scrub(player, pick["during"])  # the first child writes its page
    assert variables(player) == {pick["child"]: pick["child_during"],
                                 pick["lead"]: pick["lead_during"]}  # fmt: skip
    assert pick["lead_during"]["API_KEY"] == "[secret:API_KEY]"
    assert pick["child_during"] == {"DRAFT": "/oolong.html"}
    assert SECRET not in page.content()
    # The lead's call that made the child runs there, standing still: no clock of it ticks.
    running = player.locator("[data-testid=tool-card][data-status=running]")
    assert running.count() >= 1
    assert player.locator(".tl-elapsed").count() == 0
    said = running.first.locator("[data-testid=tool-meta]").inner_text()
    page.wait_for_timeout(1200)
    assert running.first.locator("[data-testid=tool-meta]").inner_text() == said == "running"
    in_both_themes(page, shots / "player-env-during", show=lambda: centre(player))
    scrub(player, pick["noted"])
    assert variables(player) == {pick["lead"]: pick["lead_noted"]}
    assert pick["lead_noted"]["LAST_NOTE"] == "note 11"  # the two children came first
    player.locator("[data-testid=player-back]").click()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    in_both_themes(page, shots / "player-env-after", show=lambda: centre(player))


def test_a_pause_before_a_model_step_is_no_model_time(opened: Any) -> None:
    page, shots, _ = opened
    player = cell(page, SOLO).locator("[data-testid=player]")
    timeline = player.locator("[data-testid=timeline]")
    timeline.locator("summary").click()
    head = timeline.locator("summary").inner_text()
    assert re.search(r" · 2 model steps \(\d+ ms\) · 1 call \(\d+ ms\)$", head), head
    # At the point its first step is stored: one step, in the singular; its call still runs.
    total = int(where(player).split(" / ")[1].split(" ")[0])
    for point in range(total):
        scrub(player, point)
        if "assistant calls note" in where(player):
            break
    head = timeline.locator("summary").inner_text()
    assert re.search(r" · 1 model step \(\d+ ms\) · 0 calls \(0 ms\)$", head), head
    # Resumed after its pause: the run goes on there, it is not still waiting.
    assert player.locator("[data-testid=run-status]").inner_text() == "running"
    assert player.locator(".tl-elapsed").count() == 0
    in_both_themes(page, shots / "player-paused-timeline", show=lambda: centre(player))


def test_the_words_name_each_child_once_and_count_in_the_singular(opened: Any) -> None:
    page, shots, pick = opened
    player = cell(page, STUDIO).locator("[data-testid=player]")
    scrub(player, pick["noted"])  # both children made, their calls still drawn
    nodes = player.locator("[data-testid=tree-node]")
    names = [n.locator("b").inner_text() for n in nodes.all()]
    assert names == ["studio", "page_builder-1", "page_builder-1-2"]
    made = player.locator("[data-testid=tool-card]", has_text="subagent_create")
    labels = [c.locator("[data-testid=tool-label]").inner_text() for c in made.all()]
    assert labels == ["site_builder · page_builder-1", "site_builder · page_builder-1-2"]
    # A node clicked shows its thread as it was, and the tree's heading still reads whole.
    nodes.nth(2).click()
    assert "tl-selected" in (nodes.nth(2).get_attribute("class") or "")
    left = player.locator(".tl-left")
    heading = left.locator(".tl-heading").first
    assert heading.inner_text() == "threads"
    assert left.evaluate("e => e.scrollLeft") == 0
    box, pane = heading.bounding_box(), left.bounding_box()
    assert box is not None
    assert pane is not None
    assert box["x"] >= pane["x"]
    in_both_themes(page, shots / "player-words", show=lambda: centre(player))

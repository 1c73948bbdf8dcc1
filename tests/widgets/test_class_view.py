"""The instructor's view (`tl.class_view`): per member of a class, the latest thread of the
exercise, where it stands (answered, paused for a decision, failed) and its grade; a member's
thread opens below; it follows the store while the kernel holds it; `%threadlab class`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab import grading as g
from threadlab.models import call, text
from threadlab.widgets import ClassView

from .fake_comm import install

PATH = {"type": "object", "properties": {"path": {"type": "string"}}}


def exercise(registry: tl.Registry, steps: list[Any], name: str) -> None:
    async def write(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file(args["path"], "<h1>Tea</h1>")
        return f"wrote {args['path']}"

    def broken(state: tl.ThreadState, args: dict[str, Any]) -> str:
        raise RuntimeError("disk full")

    if registry.tool("write") is None:
        tl.define_tool("write", description="Write.", execute=write, args=PATH,
                       registry=registry)  # fmt: skip
        tl.define_tool("delete", description="Delete.", execute=lambda s, a: "gone", args=PATH,
                       approval="always", registry=registry)  # fmt: skip
    tl.define_prompt(name, prompt="Pages.", tools=["write", "delete"],
                     model=tl.models.ScriptedModel(steps), registry=registry)  # fmt: skip


async def class_of_three(registry: tl.Registry, store: Path) -> None:
    """Ann answers, Bob's run waits for a decision, Cem's model fails; Ann has an earlier
    thread of another exercise, which the view leaves out."""
    exercise(registry, [call("write", {"path": "/index.html"}), text("done")], "site")
    exercise(registry, [text("hello")], "warmup")
    for member, steps in {
        "bob": [call("delete", {"path": "/old"}), text("done")],
        "cem": [call("write", {"path": "/index.html"})],  # then the script runs out: failed
    }.items():
        exercise(registry, steps, f"site_{member}")
    runs = {"ann": ["warmup", "site"], "bob": ["site_bob"], "cem": ["site_cem"]}
    for member, targets in runs.items():
        rt = tl.Runtime(registry, store, user=member)
        for target in targets:
            await (await rt.create_thread(target)).send("make the page")
        rt.close()


async def test_each_member_with_their_latest_thread_where_it_stands_and_its_grade(
    registry: tl.Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    await class_of_three(registry, tmp_path)
    instructor = tl.Runtime(registry, tmp_path, user="teacher")
    checks = [g.called("write", path="/index.html"), g.answer_contains("done")]
    view = tl.class_view(instructor, checks=checks, members=["dee"])
    assert isinstance(view, ClassView)
    rows = {r["member"]: r for r in view.rows}
    assert sorted(rows) == ["ann", "bob", "cem", "dee"]
    ann, bob, cem, dee = (rows[m] for m in ("ann", "bob", "cem", "dee"))
    assert (ann["status"], ann["where"], ann["calls"], ann["threads"]) == (
        "completed", "answered", 1, 2
    )  # fmt: skip
    assert (ann["score"], ann["max_score"], ann["feedback"]) == (2.0, 2.0, "every check passed")
    assert (bob["status"], bob["where"]) == ("waiting", "waits for a decision on delete")
    assert bob["feedback"] == "write was never called with path='/index.html'"
    assert cem["status"] == "failed"
    assert cem["where"].startswith("failed: ")
    assert (dee["thread"], dee["status"]) == (None, "no thread")
    view._on_message(view, {"op": "open", "thread": bob["thread"]}, [])
    assert view.opened["root"] == bob["thread"]
    text_form = repr(view)
    assert text_form.splitlines()[0] == "4 members, every target"
    assert "waits for a decision on delete" in view.static_html()
    instructor.close()


async def test_an_exercise_narrows_it_and_a_check_that_cannot_grade_is_said(
    registry: tl.Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    await class_of_three(registry, tmp_path)
    instructor = tl.Runtime(registry, tmp_path)
    view = tl.class_view(instructor, "warmup", checks=[g.called("nonexistent_tool")])
    (row,) = view.rows
    assert (row["member"], row["status"], row["calls"]) == ("ann", "completed", 0)
    assert row["feedback"].startswith("not graded: the check called(nonexistent_tool) names")
    assert row["score"] is None
    instructor.close()


async def test_it_follows_the_store_while_the_kernel_holds_it(
    registry: tl.Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    exercise(registry, [text("done")] * 3, "site")
    instructor = tl.Runtime(registry, tmp_path)
    view = ClassView(instructor, exercise="site", refresh_s=0.05)
    assert view.live is True
    assert view.rows == []
    student = tl.Runtime(registry, tmp_path, user="ann")
    await (await student.create_thread("site")).send("go")
    for _ in range(100):
        await asyncio.sleep(0.02)
        if view.rows:
            break
    assert [r["member"] for r in view.rows] == ["ann"]
    view.close()
    assert view.saved_state()["live"] is False
    for rt in (student, instructor):
        rt.close()


def test_a_script_reads_it_once(registry: tl.Registry, tmp_path: Path) -> None:
    view = tl.class_view(tl.Runtime(registry, tmp_path))
    assert view.live is False  # no event loop here: nothing to follow with
    assert repr(view) == "0 members, every target"


async def test_one_member_reads_as_one(
    registry: tl.Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    exercise(registry, [text("done")], "site")
    student = tl.Runtime(registry, tmp_path, user="ann")
    await (await student.create_thread("site")).send("go")
    view = tl.class_view(tl.Runtime(registry, tmp_path))
    assert repr(view).splitlines()[0] == "1 member, every target"
    student.close()


async def test_a_misspelled_exercise_shows_no_one_and_the_exercises_there_are(
    registry: tl.Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    await class_of_three(registry, tmp_path)
    instructor = tl.Runtime(registry, tmp_path)
    view = tl.class_view(instructor, "stie", checks=[g.answer_contains("done")])
    assert view.rows == []
    assert view.exercises == ["site", "site_bob", "site_cem", "warmup"]
    instructor.close()

"""The player's history: the points of a thread and its subagents, labelled, each step's
narration at the point it tells of, sent once with the thread's whole trace."""

from __future__ import annotations

import json

import pytest

import threadlab as tl
from threadlab.widgets import PlayerView

from ..execution.test_snapshot import SECRET, made
from .fake_comm import install


async def test_the_points_are_the_history_with_labels_and_narration(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    thread = await made(rt, registry)
    (child,) = thread.children
    view = tl.player(thread)
    assert isinstance(view, PlayerView)
    points = view.points
    assert [(p["kind"], p["id"]) for p in points] == [
        (p.kind, p.id) for p in thread.history_points()
    ]
    labels = [p["label"] for p in points if p["thread"] == thread.id]
    assert labels[:4] == ["user: go", "call of save", "call of mood", "assistant calls save, mood"]
    assert "subagent w1 created" in labels
    assert labels[-1] == "run completed"
    assert next(p["label"] for p in points if p["thread"] == child.id) == "user: task"
    told = {p["label"]: p["explain"] for p in points if "explain" in p}
    assert told["assistant calls save, mood"].startswith("**A model step")
    assert "execute local tools sequentially" in told["assistant calls save, mood"]
    assert told["subagent w1 created"].startswith("**A subagent.** While `subagent_create` ran")
    # The whole trace goes with it once (the child's messages too), and no secret.
    state = view.saved_state()
    assert set(state["trace"]["messages"]) == {thread.id, child.id}
    assert state["points"] == points
    assert SECRET not in json.dumps(state)
    assert repr(view).startswith(f"player of {thread.id}: {len(points)} points")

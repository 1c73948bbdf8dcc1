"""The live view of a lead whose children run on Ray: their runs stream in Ray's worker
processes, and the view shows each child's call while it runs (read from the store, not only
its report at the end); when the lead's run ends it holds the same conversations a replay
shows."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.widgets import LiveRun
from threadlab.widgets._replay import replay

from ..widgets.fake_comm import install
from .conftest import KEY
from .crew import define_crew

pytestmark = pytest.mark.processes  # Ray's worker processes


async def test_the_live_view_shows_the_engines_children_while_they_run(
    ray_cluster: Any, store_spec: str, tmp_path: Path, monkeypatch: Any
) -> None:
    install(monkeypatch)
    registry = tl.Registry()
    define_crew(registry, tmp_path, pause=1.0)  # each child's call lasts a second
    rt = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine(),
                    poll_interval=0.1)  # fmt: skip
    lead = await rt.create_thread("fan")
    live = LiveRun(rt, lead, rate=1000)
    running = asyncio.ensure_future(live.run("2"))
    seen_open: set[str] = set()  # children whose call the view showed running

    async def watch() -> None:
        while not running.done():
            for card in live.state.snapshot()["cards"].values():
                if card["thread"] != lead.id and card["status"] == "running":
                    seen_open.add(card["thread"])
            await asyncio.sleep(0.05)

    await asyncio.wait_for(asyncio.gather(running, watch()), 90)
    children = lead.children
    assert len(children) == 2
    assert seen_open == {c.id for c in children}
    shown = live.state.snapshot()
    # None of them ran in this process: the view read their runs from the store.
    assert not {c.id for c in children} & live.ran_here
    for child in children:
        listed = shown["threads"][[t["id"] for t in shown["threads"]].index(child.id)]
        assert listed["status"] == "completed"
        roles = [m["role"] for m in shown["messages"][child.id]]
        assert roles == ["user", "assistant", "tool", "assistant"]
    assert shown["messages"] == replay(lead).snapshot()["messages"]
    rt.close()

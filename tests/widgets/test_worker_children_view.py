"""The live view of a lead whose children a worker process ran: their runs streamed in the
worker, so when the lead's run ends the view reads what they did from the store — the same
conversations a replay shows."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import threadlab as tl
from threadlab.widgets import LiveRun
from threadlab.widgets._replay import replay

from ..runtime.team import define_team, workers
from .fake_comm import install

pytestmark = pytest.mark.processes  # it starts a worker process


async def test_the_live_view_shows_what_the_workers_children_did(
    store_spec: str, monkeypatch: Any
) -> None:
    install(monkeypatch)
    registry = tl.Registry()
    define_team(registry)
    rt = tl.Runtime(registry, store_spec, secret_key="k", children="workers", poll_interval=0.1)
    with workers(store_spec, 1, 0.1):
        lead = await rt.create_thread("boss")
        live = LiveRun(rt, lead, rate=1000)
        await asyncio.wait_for(live.run("2"), 30)
    shown = live.state.snapshot()
    children = lead.children
    assert len(children) == 2
    # None of them ran in this process: the view read their runs from the store.
    assert not {c.id for c in children} & live.ran_here
    for child in children:
        assert shown["threads"][[t["id"] for t in shown["threads"]].index(child.id)]["status"] == (
            "completed"
        )
        roles = [m["role"] for m in shown["messages"][child.id]]
        assert roles == ["user", "assistant", "tool", "assistant"]
    assert shown["messages"] == replay(lead).snapshot()["messages"]
    rt.close()

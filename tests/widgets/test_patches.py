"""Live patches carry everything that changed: a copy of the trace kept by merging patches (as
the front end does) ends equal to the trace itself, at every step of a real run."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Mapping
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, step, text
from threadlab.widgets._patches import Patcher, apply_patch
from threadlab.widgets._replay import trace_for

from ..helpers import scripted_prompt


def merge(trace: dict[str, Any], patch: Mapping[str, Any]) -> None:
    """What applyPatch in js/patch.js does."""
    for thread in patch.get("threads", []):
        ids = [t["id"] for t in trace["threads"]]
        if thread["id"] in ids:
            trace["threads"][ids.index(thread["id"])] = thread
        else:
            trace["threads"].append(thread)
    trace["cards"].update(patch.get("cards", {}))
    trace["files"].update(patch.get("files", {}))
    for tid, added in patch.get("messages", {}).items():
        trace["messages"][tid] = trace["messages"].get(tid, []) + added
    for tid, draft in patch.get("drafts", {}).items():
        if draft is None:
            trace["drafts"].pop(tid, None)
        else:
            trace["drafts"][tid] = draft
    if "run" in patch:
        trace["run"] = patch["run"]
    if patch.get("apps"):
        trace.setdefault("apps", {}).update(patch["apps"])


@pytest.mark.parametrize("look", ["whole state", "what events touched"])
async def test_merged_patches_rebuild_the_trace_at_every_step(
    rt: tl.Runtime, registry: tl.Registry, look: str
) -> None:
    async def save(state: tl.ThreadState, args: Any) -> str:
        state.emit("progress", {"step": 1, "of": 2})
        await state.write_file(f"/{args['n']}.txt", "x" * args["n"])
        return "saved"

    tl.define_tool("save", description="s", execute=save, registry=registry, ui="<p>saved</p>",
                   args={"type": "object", "properties": {"n": {"type": "integer"}}})  # fmt: skip
    steps = [step(*(call("save", {"n": i}) for i in range(1, 4)), text="Saving three.")]
    steps += [call("save", {"n": 9}), text("All saved.\nBye.")]
    steps += [call("save", {"n": 5}), text("Once more.")]
    scripted_prompt(registry, steps, tools=["save"], chunk_size=3)
    thread = await rt.create_thread("p")
    state = trace_for(thread, rt.thread)
    patcher = Patcher()
    mirror = state.snapshot()
    kernel = state.snapshot()  # the kernel's copy, patched in place
    patcher.reset(mirror)
    state.take_changed()
    sizes = []
    pages_sent = 0
    for message in ("go", "again"):  # the second run starts the run summary over
        async for event in thread.stream(message):
            state.apply(event)
            if look == "whole state":
                patch = patcher.patch(state.snapshot())
            else:
                patch = patcher.changes(state)
            sizes.append(len(json.dumps(patch)))
            pages_sent += len(patch.get("apps", {}))
            merge(mirror, copy.deepcopy(patch))
            apply_patch(kernel, copy.deepcopy(patch))
            assert mirror == state.snapshot()
            assert kernel == mirror
    assert patcher.patch(state.snapshot()) == {}  # nothing left to say
    assert pages_sent == 1  # the tool's app page, once for its five calls
    full = len(json.dumps(state.snapshot()))
    assert max(sizes) < full  # no patch is the whole trace again


async def test_a_view_that_renders_late_gets_the_whole_trace_then_patches(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: Any
) -> None:
    from threadlab.widgets import LiveRun

    from .fake_comm import install, patches, updates

    sent = install(monkeypatch)
    release = asyncio.Event()

    async def hold(state: tl.ThreadState, args: Any) -> str:
        await release.wait()  # keeps the run live until the late view has asked
        return "fine"

    tl.define_tool("ok", description="x", execute=hold, registry=registry)
    scripted_prompt(registry, [call("ok"), text("bye")], tools=["ok"])
    thread = await rt.create_thread("p")
    live = LiveRun(rt, thread, rate=1000)
    task = asyncio.ensure_future(live.run("go"))
    # Patches go out before any front end listens; the recording comm cannot signal.
    while not patches(sent):  # noqa: ASYNC110
        await asyncio.sleep(0.001)
    before = len(sent)
    live.view._on_message(None, {"op": "ready"}, None)  # the front end, rendered now
    (resync,) = [state for _, state in updates(sent[before:]) if "trace" in state]
    assert resync["trace"] == live.state.snapshot()
    mirror = copy.deepcopy(resync["trace"])
    count = len(sent)
    release.set()
    await task
    for patch in patches(sent[count:]):
        merge(mirror, copy.deepcopy(patch))
    final = [s for _, s in updates(sent[count:]) if "trace" in s][-1]["trace"]
    # The patches after the resync add to it, none twice; the end sends the whole trace. How
    # many of the last messages went out as patches before the end depends on timing (the
    # throttle may fold them into the final trace), so the merged copy is a prefix of it.
    (tid,) = final["messages"]
    merged, whole = mirror["messages"][tid], final["messages"][tid]
    assert [m["text"] for m in whole] == ["go", "", "fine", "bye"]
    assert len(merged) >= len(resync["trace"]["messages"][tid])
    assert merged == whole[: len(merged)]

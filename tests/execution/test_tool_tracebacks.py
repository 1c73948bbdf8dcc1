"""A tool that raises: the model reads the one-line error; the person reading the trace gets
the traceback, trimmed to the tool's own frames and redacted, stored with the call's
`tool_call_finished` event and shown on its card."""

from __future__ import annotations

from typing import Any

import threadlab as tl
from threadlab.models import call, text
from threadlab.widgets import static_html

from ..helpers import scripted_prompt

SECRET = "tok-4419-secret-value"


def parse(state: tl.ThreadState, raw: str) -> int:
    return int(raw)  # raises ValueError for the model's "twelve"


async def convert(state: tl.ThreadState, args: dict[str, Any]) -> int:
    key = await state.env("API_KEY")
    assert key
    if args["value"] == "boom":
        raise RuntimeError(f"upstream refused key {key}")
    return parse(state, args["value"])


def sync_convert(state: tl.ThreadState, args: dict[str, Any]) -> int:
    return parse(state, args["value"])


async def test_the_traceback_is_kept_for_people_and_the_model_gets_one_line(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    schema = {"type": "object", "properties": {"value": {"type": "string"}}}
    secret = [tl.Variable("API_KEY", type="secret", required=True)]
    tl.define_tool("convert", description="c", args=schema, execute=convert, variables=secret,
                   registry=registry)  # fmt: skip
    tl.define_tool("sync_convert", description="s", args=schema, execute=sync_convert,
                   registry=registry)  # fmt: skip
    steps = [
        call("convert", {"value": "twelve"}),
        call("convert", {"value": "boom"}),
        call("sync_convert", {"value": "x"}),
        call("convert", {"value": "12"}),
        text("done"),
    ]
    scripted_prompt(registry, steps, tools=["convert", "sync_convert"])
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    await thread.send("go")

    results = [m for m in thread.messages if m.role == "tool"]
    assert [m.content for m in results] == [
        "ValueError: invalid literal for int() with base 10: 'twelve'",
        "RuntimeError: upstream refused key [secret:API_KEY]",
        "ValueError: invalid literal for int() with base 10: 'x'",
        "12",
    ]
    finished = [e for e in thread.events if isinstance(e, tl.ToolCallFinishedEvent)]
    first, second, third, fourth = (e.traceback for e in finished)
    assert first is not None
    assert first.startswith("Traceback (most recent call last):\n")
    assert 'in convert\n    return parse(state, args["value"])' in first
    assert "in parse\n    return int(raw)" in first
    assert first.endswith("ValueError: invalid literal for int() with base 10: 'twelve'")
    assert "threadlab/execution" not in first  # the runtime's own frames are left out
    assert second is not None
    assert SECRET not in second
    assert "[secret:API_KEY]" in second
    assert third is not None
    assert "in sync_convert" in third  # a sync tool, run on a pooled thread, too
    assert "_thread_pool" not in third
    assert fourth is None
    # The card shows it, live or reopened; the model's view has only the one line.
    page = static_html(rt.thread(thread.id))
    assert "in parse\n    return int(raw)" in page.replace("&quot;", '"')
    assert SECRET not in page

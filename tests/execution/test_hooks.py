from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

import threadlab as tl
from threadlab._data import HookName
from threadlab.models import call, text

from ..helpers import scripted_prompt, tool_messages


async def test_hooks_run_only_where_listed_and_prompt_hooks_win_over_agent_hooks(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    calls: list[str] = []
    tl.define_hook(
        hook="after_create_message",
        id="prompt_hook",
        execute=lambda s, m: calls.append(f"prompt:{m.role}"),
        registry=registry,
    )
    tl.define_hook(
        hook="after_create_message",
        id="agent_hook",
        execute=lambda s, m: calls.append(f"agent:{m.role}"),
        registry=registry,
    )
    tl.define_hook(
        hook="after_create_message",
        id="unused",
        execute=lambda s, m: calls.append("unused"),
        registry=registry,
    )
    scripted_prompt(registry, [text("a")], name="with_hooks", hooks=["prompt_hook"])
    scripted_prompt(registry, [text("b")], name="without_hooks")
    tl.define_agent("one", side_a="with_hooks", hooks=["agent_hook"], registry=registry)
    tl.define_agent("two", side_a="without_hooks", hooks=["agent_hook"], registry=registry)
    await (await rt.create_thread("one")).send("x")
    await (await rt.create_thread("two")).send("y")
    assert calls == ["prompt:user", "prompt:assistant", "agent:user", "agent:assistant"]


async def test_filter_and_prefilter_hooks_shape_what_the_model_sees(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    def drop_errors(state: tl.ThreadState, messages: list[tl.Message]) -> list[tl.Message]:
        return [m for m in messages if m.tool_status != "error"]

    def add_clock(state: tl.ThreadState, messages: list[tl.Message]) -> list[tl.Message]:
        return [tl.Message(role="system", content="It is noon."), *messages]

    tl.define_hook(hook="filter_messages", id="drop_errors", execute=drop_errors, registry=registry)
    tl.define_hook(hook="prefilter_llm_history", id="clock", execute=add_clock, registry=registry)
    tl.define_tool("fail", description="x", execute=lambda s, a: 1 / 0, registry=registry)
    model = scripted_prompt(
        registry, [call("fail"), text("ok")], tools=["fail"], hooks=["drop_errors", "clock"]
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    second = model.requests[1].messages
    assert second[0].content == "It is noon."
    assert all(m.tool_status != "error" for m in second)
    assert tool_messages(thread)[0].tool_status == "error"  # filtered for the model only


async def test_before_store_tool_result_transforms_and_after_hooks_observe(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    seen: list[tuple[str, str]] = []
    tl.define_hook(
        hook="before_store_tool_result",
        id="upper",
        execute=lambda s, r: (
            r.model_copy(update={"result": str(r.result).upper()})
            if r.status == "success"
            else None
        ),
        registry=registry,
    )
    tl.define_hook(
        hook="after_tool_call_success",
        id="ok",
        execute=lambda s, p: seen.append(("ok", p[0].name)),
        registry=registry,
    )
    tl.define_hook(
        hook="after_tool_call_failure",
        id="bad",
        execute=lambda s, p: seen.append(("bad", p[1].error or "")),
        registry=registry,
    )
    tl.define_tool("hi", description="x", execute=lambda s, a: "hello", registry=registry)
    scripted_prompt(
        registry, [call("hi"), call("nope"), text("ok")], tools=["hi"], hooks=["upper", "ok", "bad"]
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert tool_messages(thread)[0].content == "HELLO"
    assert seen[0] == ("ok", "hi")
    assert seen[1][0] == "bad"
    assert "unknown tool 'nope'" in seen[1][1]


async def test_a_failing_or_slow_hook_is_logged_and_the_original_data_kept(
    registry: tl.Registry, store_dir: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(state: tl.ThreadState, message: tl.Message) -> tl.Message:
        raise ValueError("hook bug")

    async def slow(state: tl.ThreadState, message: tl.Message) -> tl.Message:
        await asyncio.sleep(5)
        return message.model_copy(update={"content": "changed"})

    tl.define_hook(hook="before_create_message", id="broken", execute=broken, registry=registry)
    tl.define_hook(hook="before_create_message", id="slow", execute=slow, registry=registry)
    scripted_prompt(registry, [text("original")], hooks=["broken", "slow"])
    rt = tl.Runtime(registry, store_dir, secret_key="k", hook_timeout=0.05)
    thread = await rt.create_thread("p")
    with caplog.at_level(logging.WARNING, logger="threadlab.hooks"):
        run = await thread.send("go")
    assert run.status == "completed"
    assert thread.messages[-1].content == "original"
    assert "hook 'broken' (before_create_message) failed: ValueError: hook bug" in caplog.text
    assert "hook 'slow' (before_create_message) failed: TimeoutError" in caplog.text
    rt.close()


async def test_message_hooks_see_the_users_message_too(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    created: list[str] = []

    def tag(state: tl.ThreadState, message: tl.Message) -> tl.Message:
        if message.role == "user":
            return message.model_copy(update={"content": f"[tagged] {message.content}"})
        return message

    tl.define_hook(hook="before_create_message", id="tag", execute=tag, registry=registry)
    tl.define_hook(
        hook="after_create_message",
        id="seen",
        registry=registry,
        execute=lambda s, m: created.append(f"{m.role}:{m.content}"),
    )
    model = scripted_prompt(registry, [text("hi")], hooks=["tag", "seen"])
    thread = await rt.create_thread("p")
    await thread.send("hello")
    assert thread.messages[0].content == "[tagged] hello"
    assert model.requests[0].messages[-1].content == "[tagged] hello"
    assert created == ["user:[tagged] hello", "assistant:hi"]


@pytest.mark.parametrize(
    ("hook", "wrong"),
    [
        ("prefilter_llm_history", 42),
        ("filter_messages", ["not a message"]),
        ("before_create_message", {"role": "user"}),
        ("before_store_tool_result", "a string"),
    ],
)
async def test_a_hook_returning_the_wrong_type_is_reported_and_ignored(
    rt: tl.Runtime,
    registry: tl.Registry,
    caplog: pytest.LogCaptureFixture,
    hook: HookName,
    wrong: object,
) -> None:
    tl.define_hook(hook=hook, id="wrong", execute=lambda s, p: wrong, registry=registry)
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    scripted_prompt(
        registry, [call("ping"), text("done"), text("again")], tools=["ping"], hooks=["wrong"]
    )
    thread = await rt.create_thread("p")
    with caplog.at_level(logging.WARNING, logger="threadlab.hooks"):
        first = await thread.send("go")
        second = await thread.send("once more")
    assert (first.status, first.text, second.status, second.text) == (
        "completed",
        "done",
        "completed",
        "again",
    )
    assert tool_messages(thread)[0].content == "pong"
    assert f"hook 'wrong' ({hook}) returned a {type(wrong).__name__}" in caplog.text


async def test_a_sync_hook_honours_the_hook_timeout(
    registry: tl.Registry, store_dir: Any, caplog: pytest.LogCaptureFixture
) -> None:
    import time

    def slow(state: tl.ThreadState, message: tl.Message) -> tl.Message:
        time.sleep(2)
        return message.model_copy(update={"content": "changed"})

    tl.define_hook(hook="before_create_message", id="slow", execute=slow, registry=registry)
    scripted_prompt(registry, [text("original")], hooks=["slow"])
    rt = tl.Runtime(registry, store_dir, secret_key="k", hook_timeout=0.2)
    thread = await rt.create_thread("p")
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="threadlab.hooks"):
        run = await thread.send("go")
    assert time.monotonic() - started < 1.5  # two messages, each hook abandoned at 0.2 s
    assert (run.status, thread.messages[-1].content) == ("completed", "original")
    assert "hook 'slow' (before_create_message) failed: TimeoutError" in caplog.text
    rt.close()


async def test_a_failing_hooks_message_is_logged_with_secrets_redacted(
    rt: tl.Runtime, registry: tl.Registry, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "sk-hook-secret-90210"

    async def leaky(state: tl.ThreadState, message: tl.Message) -> None:
        raise RuntimeError(f"cannot use {await state.env('API_KEY')}")

    tl.define_hook(hook="after_create_message", id="leaky", execute=leaky, registry=registry)
    scripted_prompt(
        registry,
        [text("ok")],
        hooks=["leaky"],
        variables=[tl.Variable("API_KEY", type="secret", required=True)],
    )
    thread = await rt.create_thread("p", secrets={"API_KEY": secret})
    with caplog.at_level(logging.WARNING, logger="threadlab.hooks"):
        await thread.send("go")
    assert "cannot use [secret:API_KEY]" in caplog.text
    assert secret not in caplog.text

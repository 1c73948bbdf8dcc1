"""What the wire tests share: a model on the scripted server, two tools, a key."""

from __future__ import annotations

import json
from typing import Any

import threadlab as tl

from ._server import ScriptedServer

KEY = "sk-test-9f8e7d6c5b4a39281706"
"""The API key the tests give; no artifact may ever show it."""

WRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a"],
}


def base_url(server: ScriptedServer, provider: str) -> str:
    # The OpenAI SDK's base URL includes the version; Anthropic's does not.
    return server.url if provider == "anthropic" else f"{server.url}/v1"


def remote_prompt(
    registry: tl.Registry,
    server: ScriptedServer,
    provider: str = "openai",
    *,
    tools: tuple[str, ...] = ("write_file", "add"),
    **options: Any,
) -> None:
    """Model "remote" of `provider` on `server`, and prompt "p" using it with `tools`."""
    options.setdefault("max_retries", 0)
    tl.define_model(
        "remote",
        provider=provider,  # type: ignore[arg-type]
        model="test-model",
        base_url=base_url(server, provider),
        options=options,
        registry=registry,
    )

    async def write_file(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file(args["path"], args["content"])
        return f"wrote {len(args['content'])} characters to {args['path']}"

    tl.define_tool(
        "write_file",
        description="Write a file.",
        args=WRITE_SCHEMA,
        execute=write_file,
        progress_argument="path",
        registry=registry,
    )
    tl.define_tool(
        "add",
        description="Add two integers.",
        args=ADD_SCHEMA,
        execute=lambda state, args: str(args["a"] + args.get("b", 0)),
        registry=registry,
    )
    tl.define_prompt(
        "p", prompt="You are a test.", model="remote", tools=list(tools), registry=registry
    )


def key_variable(provider: str) -> str:
    return "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"


async def new_thread(rt: tl.Runtime, provider: str = "openai") -> tl.Thread:
    return await rt.create_thread("p", secrets={key_variable(provider): KEY})


async def collect(thread: tl.Thread, message: str) -> list[tl.ThreadEvent]:
    return [event async for event in thread.stream(message)]


def arguments(text: Any) -> str:
    return json.dumps(text, ensure_ascii=False)


def first_calls(thread: tl.Thread) -> tuple[tl.ToolCall, ...]:
    """The tool calls of the thread's first assistant message that has any."""
    return next(m.tool_calls for m in thread.messages if m.tool_calls)


def starts(events: list[tl.ThreadEvent]) -> list[tuple[str, str | None]]:
    """(call id, progress) of each `tool_call_started`, in order."""
    return [(e.tool_call_id, e.progress) for e in events if isinstance(e, tl.ToolCallStartedEvent)]


def started_while_streaming(events: list[tl.ThreadEvent]) -> bool:
    """Whether the first call started before the last piece of argument text arrived."""
    first = next(i for i, e in enumerate(events) if isinstance(e, tl.ToolCallStartedEvent))
    pieces = [i for i, e in enumerate(events) if isinstance(e, tl.ToolCallDeltaEvent) and e.delta]
    return first < pieces[-1]


def usage(input_tokens: int, output_tokens: int, cached_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cached_tokens": cached_tokens,
    }

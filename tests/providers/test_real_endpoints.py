"""Opt-in: the same prompt against the real APIs, when their key is in the environment
(`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`; the model ids can be changed with
`THREADLAB_TEST_OPENAI_MODEL` / `THREADLAB_TEST_ANTHROPIC_MODEL`). Skipped otherwise — the
rest of the suite needs no key and no network."""

from __future__ import annotations

import os

import pytest

import threadlab as tl

ENDPOINTS = [
    ("openai", "OPENAI_API_KEY", "THREADLAB_TEST_OPENAI_MODEL", "gpt-4.1-mini"),
    ("openai-responses", "OPENAI_API_KEY", "THREADLAB_TEST_OPENAI_MODEL", "gpt-4.1-mini"),
    ("anthropic", "ANTHROPIC_API_KEY", "THREADLAB_TEST_ANTHROPIC_MODEL", "claude-haiku-4-5"),
]


@pytest.mark.parametrize(("provider", "key", "model_variable", "default"), ENDPOINTS)
async def test_a_real_endpoint_calls_a_tool_with_progress_and_answers(
    rt: tl.Runtime,
    registry: tl.Registry,
    provider: str,
    key: str,
    model_variable: str,
    default: str,
) -> None:
    if not os.environ.get(key):
        pytest.skip(f"{key} is not set: the real {provider} endpoint is not tried")
    tl.define_model(
        "real",
        provider=provider,  # type: ignore[arg-type]
        model=os.environ.get(model_variable, default),
        options={"max_tokens": 400} if provider == "anthropic" else {},
        registry=registry,
    )

    async def write_file(state: tl.ThreadState, args: dict[str, str]) -> str:
        await state.write_file(args["path"], args["content"])
        return "written"

    tl.define_tool(
        "write_file",
        description="Write a file into the thread's filesystem.",
        args={
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": 'e.g. "writing a.txt"'},
                "path": {"type": "string", "description": "absolute, like /a.txt"},
                "content": {"type": "string"},
            },
            "required": ["description", "path", "content"],
            "additionalProperties": False,
        },
        execute=write_file,
        progress_argument="description",
        registry=registry,
    )
    tl.define_prompt(
        "p",
        prompt="Use write_file exactly once, then answer in one short sentence.",
        model="real",
        tools=["write_file"],
        registry=registry,
    )
    thread = await rt.create_thread("p")  # the key comes from the environment
    events = [e async for e in thread.stream("Write /hello.txt containing the word hello.")]
    run = events[-1]
    assert isinstance(run, tl.RunFinishedEvent)
    assert run.status == "completed", run.error
    assert any(isinstance(e, tl.ToolCallStartedEvent) and e.progress for e in events)
    assert b"hello" in thread.files.read_sync("/hello.txt").lower()
    assert thread.messages[-1].usage

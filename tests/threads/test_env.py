"""Variables and env: resolution, required, text/secret, encryption at rest, redaction."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text

from ..helpers import scripted_prompt, tool_messages

SECRET = "sk-live-4f9a8b7c6d5e"


def reader(registry: tl.Registry, *names: str, variables: Sequence[tl.Variable] = ()) -> None:
    async def read(state: tl.ThreadState, args: Any) -> dict[str, Any]:
        return {n: await state.env(n) for n in names}

    tl.define_tool(
        "read", description="Read env.", execute=read, variables=variables, registry=registry
    )


async def test_missing_required_variables_are_all_named_with_their_declarers(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool(
        "search",
        description="x",
        execute=lambda s, a: "",
        registry=registry,
        variables=[tl.Variable("STORE_ID", required=True), tl.Variable("OPTIONAL")],
    )
    tl.define_prompt(
        "p",
        prompt="x",
        tools=["search"],
        registry=registry,
        variables=[tl.Variable("API_KEY", type="secret", required=True)],
    )
    tl.define_agent(
        "a", side_a="p", registry=registry, variables=[tl.Variable("TEAM", required=True)]
    )
    with pytest.raises(tl.MissingVariableError) as info:
        await rt.create_thread("a")
    assert sorted(info.value.missing) == [
        ("API_KEY", "prompt 'p'"),
        ("STORE_ID", "tool 'search'"),
        ("TEAM", "agent 'a'"),
    ]
    assert "API_KEY, STORE_ID, TEAM" in str(info.value)
    assert rt.threads() == []  # nothing half-created
    thread = await rt.create_thread(
        "a", env={"STORE_ID": "s1", "TEAM": "t"}, secrets={"API_KEY": SECRET}
    )
    assert thread.status == "idle"


async def test_resolution_order_thread_agent_toolconfig_prompt_process(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ["A", "B", "C", "D", "E", "UNDECLARED"]
    reader(registry, *names, variables=[tl.Variable(n) for n in "ABCDE"])
    for n in names:
        monkeypatch.setenv(n, f"process-{n}")
    tl.define_prompt(
        "p",
        prompt="x",
        registry=registry,
        tools=[tl.ToolConfig("read", env={"A": "tool-A", "B": "tool-B", "C": "tool-C"})],
        env={"A": "prompt-A", "B": "prompt-B", "C": "prompt-C", "D": "prompt-D"},
        model=tl.models.ScriptedModel([call("read"), text("ok")]),
    )
    tl.define_agent("a", side_a="p", env={"A": "agent-A", "B": "agent-B"}, registry=registry)
    thread = await rt.create_thread("a", env={"A": "thread-A"})
    await thread.send("go")
    import json

    values = json.loads(tool_messages(thread)[0].content or "")
    assert values == {
        "A": "thread-A",
        "B": "agent-B",
        "C": "tool-C",
        "D": "prompt-D",
        "E": "process-E",
        "UNDECLARED": None,  # the process environment serves declared variables only
    }


async def test_secrets_are_encrypted_at_rest_and_redacted_everywhere(
    registry: tl.Registry, store_dir: Path, tmp_path: Path
) -> None:
    def leak(state: tl.ThreadState, args: Any) -> str:
        value = state.sync.env("API_KEY")
        state.emit("leak", {"key": value})
        raise RuntimeError(f"auth failed for key {value}")

    async def echo(state: tl.ThreadState, args: Any) -> str:
        return f"the key is {await state.env('API_KEY')}"

    tl.define_tool(
        "leak",
        description="x",
        execute=leak,
        registry=registry,
        variables=[tl.Variable("API_KEY", type="secret", required=True)],
    )
    tl.define_tool("echo", description="x", execute=echo, registry=registry)
    model = tl.models.ScriptedModel(
        [call("echo"), call("leak"), call("echo", {"note": SECRET}), text(f"done {SECRET}")]
    )
    tl.define_prompt(
        "p", prompt="Key: {{env:API_KEY}}", model=model, tools=["echo", "leak"], registry=registry
    )
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    events = [e async for e in thread.stream(f"my key is {SECRET}")]
    # The system prompt never carries a secret to the model.
    assert model.requests[0].messages[0].content == "Key: [secret:API_KEY]"
    # ...tools do get the real value.
    assert model.requests[1].messages[-1].content == "the key is [secret:API_KEY]"
    leaked = [m for m in thread.all_messages() if m.content and SECRET in (m.content or "")]
    assert leaked == []
    assert any(
        m.content == "RuntimeError: auth failed for key [secret:API_KEY]" for m in thread.messages
    )
    for event in events + thread.events:
        assert SECRET not in event.model_dump_json()
    rt.close()
    # Nothing under the store holds the value, in any file (database, WAL, shm).
    for path in store_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    # ...and the key lives outside the store.
    assert not list(store_dir.rglob("*.key"))


async def test_a_secret_is_readable_again_with_the_same_key_only(
    registry: tl.Registry, store_dir: Path
) -> None:
    reader(registry, "TOKEN")
    tl.define_prompt(
        "p",
        prompt="x",
        tools=["read"],
        registry=registry,
        model=tl.models.FunctionModel(lambda m, t: call("read") if len(m) < 3 else "ok"),
    )
    rt = tl.Runtime(registry, store_dir, secret_key="right")
    thread = await rt.create_thread("p", secrets={"TOKEN": SECRET})
    rt.close()
    again = tl.Runtime(registry, store_dir, secret_key="right").thread(thread.id)
    await again.send("read it")
    assert tool_messages(again)[-1].content == '{"TOKEN": "[secret:TOKEN]"}'
    wrong = tl.Runtime(registry, store_dir, secret_key="wrong").thread(thread.id)
    await wrong.send("read it")
    assert tool_messages(wrong)[-1].content == '{"TOKEN": null}'


def test_the_key_file_is_created_with_0600_permissions(
    registry: tl.Registry, store_dir: Path, tmp_path: Path
) -> None:
    rt = tl.Runtime(registry, store_dir)
    key_file = tmp_path / "config" / "threadlab" / "secret.key"
    assert key_file.exists()
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    before = key_file.read_bytes()
    tl.Runtime(registry, store_dir).close()
    assert key_file.read_bytes() == before  # reused, not replaced
    rt.close()


def test_the_key_can_come_from_the_environment(
    registry: tl.Registry, store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THREADLAB_SECRET_KEY", "from-env")
    tl.Runtime(registry, store_dir).close()
    assert not (tmp_path / "config" / "threadlab" / "secret.key").exists()


async def test_env_type_and_set_env(rt: tl.Runtime, registry: tl.Registry) -> None:
    seen: dict[str, Any] = {}

    async def probe(state: tl.ThreadState, args: Any) -> str:
        seen["declared_secret"] = state.env_type("PASSWORD")
        seen["declared_text"] = state.env_type("REGION")
        seen["unknown"] = state.env_type("NOPE")
        await state.set_env("NEW_TEXT", "hello", type="text")
        seen["new_text"] = (await state.env("NEW_TEXT"), state.env_type("NEW_TEXT"))
        await state.set_env("NEW_DEFAULT", "hidden-value")
        seen["new_default"] = state.env_type("NEW_DEFAULT")
        return "hidden-value"

    tl.define_tool(
        "probe",
        description="x",
        execute=probe,
        registry=registry,
        variables=[tl.Variable("PASSWORD", type="secret"), tl.Variable("REGION")],
    )
    scripted_prompt(registry, [call("probe"), text("ok")], tools=["probe"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert seen == {
        "declared_secret": "secret",
        "declared_text": "text",
        "unknown": "secret",
        "new_text": ("hello", "text"),
        "new_default": "secret",  # new keys default to secret
    }
    assert tool_messages(thread)[0].content == "[secret:NEW_DEFAULT]"


async def test_a_required_variable_that_disappears_fails_the_call_not_the_run(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    async def unset(state: tl.ThreadState, args: Any) -> str:
        await state.set_env("TOKEN", None)
        return "unset"

    tl.define_tool("unset", description="x", execute=unset, registry=registry)
    tl.define_tool(
        "use",
        description="x",
        execute=lambda s, a: "used",
        registry=registry,
        variables=[tl.Variable("TOKEN", required=True)],
    )
    scripted_prompt(registry, [call("unset"), call("use"), text("ok")], tools=["unset", "use"])
    thread = await rt.create_thread("p", env={"TOKEN": "t"})
    run = await thread.send("go")
    assert run.status == "completed"
    result = tool_messages(thread)[1]
    assert result.tool_status == "error"
    assert result.content == (
        "tool 'use' cannot run: required variables have no value: TOKEN (declared by tool 'use')"
    )


def test_racing_first_starts_all_get_the_one_complete_key(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from threadlab.threads import SecretBox

    for trial in range(20):
        key_file = tmp_path / f"trial{trial}" / "secret.key"
        with ThreadPoolExecutor(max_workers=8) as pool:
            boxes = list(pool.map(SecretBox, [None] * 8, [key_file] * 8))
        token = boxes[0].encrypt("shared")
        assert all(box.decrypt(token) == "shared" for box in boxes)
        assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
        assert [p.name for p in key_file.parent.iterdir()] == ["secret.key"]


@pytest.mark.parametrize("content", [b"", b"not a key\n"])
def test_a_damaged_key_file_names_the_file_and_the_way_out(
    registry: tl.Registry, store_dir: Path, tmp_path: Path, content: bytes
) -> None:
    key_file = tmp_path / "config" / "threadlab" / "secret.key"
    key_file.parent.mkdir(parents=True)
    key_file.write_bytes(content)
    with pytest.raises(tl.SecretKeyError, match=r"secret\.key is empty or damaged") as raised:
        tl.Runtime(registry, store_dir)
    assert "THREADLAB_SECRET_KEY" in str(raised.value)

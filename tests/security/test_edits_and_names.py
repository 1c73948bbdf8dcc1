"""Values that enter a thread by a second door are redacted like a sent message: the edits of
a fork (a result, a user message's text, a call's arguments), and file names that hold a
secret. And a branch sees the env as it was at its fork point, not the original's later
values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, ScriptedModel, call, step, text
from threadlab.widgets import ThreadDiff, replay, static_html, static_text

from .test_secrets import HOSTILE, spellings

SECRET = HOSTILE[0]  # quotes and a backslash: its JSON and repr spellings differ
NAMED = HOSTILE[1]  # non-ASCII, and fit for a file name (a backslash is not)


def define(registry: tl.Registry) -> None:
    async def echo(state: tl.ThreadState, args: dict[str, Any]) -> str:
        return f"echo {args['path']}"

    async def save(state: tl.ThreadState, args: dict[str, Any]) -> str:
        key = await state.env("API_KEY")
        await state.write_file(f"/keys/{key}.txt", "x")
        data = await state.read_file(f"/keys/{key}.txt")  # found by the name it was given
        return f"saved {len(data)} byte"

    secret = [tl.Variable("API_KEY", type="secret")]
    path = {"type": "object", "properties": {"path": {"type": "string"}}}
    tl.define_tool("echo", description="Echo.", execute=echo, args=path, variables=secret,
                   registry=registry)  # fmt: skip
    tl.define_tool("save", description="Save.", execute=save, variables=secret,
                   registry=registry)  # fmt: skip
    tl.define_prompt(
        "p",
        prompt="x",
        tools=["echo", "save"],
        registry=registry,
        model=ScriptedModel(
            [step(call("echo", {"path": "/a"}, id="c1"), call("save", {}, id="c2")), text("done")]
            * 4
        ),
    )


def leaks(
    store_dir: Path, artifacts: dict[str, str], secret: str = SECRET
) -> list[tuple[str, str]]:
    for path in store_dir.rglob("*"):
        if path.is_file():
            artifacts[f"store file {path.name}"] = path.read_bytes().decode("utf-8", "replace")
    return [
        (name, form)
        for name, content in artifacts.items()
        for form in spellings(secret)
        if form in content
    ]


async def test_a_forks_edits_are_redacted(registry: tl.Registry, store_dir: Path) -> None:
    define(registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    await thread.send("hi")
    user = thread.messages[0].id
    branches = [
        await thread.fork(user, message=f"my key is {SECRET}"),
        await thread.fork("c1", arguments={"path": SECRET}),
        await thread.fork("c1", result=f"the key: {SECRET}"),
        await thread.fork("c1", result=tl.ToolResult("error", error=f"bad {SECRET}")),
    ]
    artifacts: dict[str, str] = {}
    for n, branch in enumerate(branches):
        diff = ThreadDiff(thread, branch)
        state = replay(branch)
        artifacts[f"branch {n} messages"] = "\n".join(m.model_dump_json() for m in branch.messages)
        artifacts[f"diff {n}"] = repr(diff) + diff.html()
        artifacts[f"branch {n} html"] = static_html(branch)
        artifacts[f"branch {n} view"] = json.dumps(state.snapshot(), ensure_ascii=False)
    rt.close()
    assert "[secret:API_KEY]" in artifacts["branch 0 messages"]  # the edits are there, redacted
    assert "[secret:API_KEY]" in artifacts["branch 1 messages"]
    assert "[secret:API_KEY]" in artifacts["branch 2 messages"]
    assert leaks(store_dir, artifacts) == []


async def test_a_file_name_that_holds_a_secret_is_redacted_everywhere(
    registry: tl.Registry, store_dir: Path
) -> None:
    define(registry)
    tl.define_prompt("saver", prompt="x", tools=["save"], registry=registry,
                     model=ScriptedModel([call("save", {}, id="c1"), text("done")]))  # fmt: skip
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("saver", secrets={"API_KEY": NAMED})
    live = [e.model_dump_json() async for e in thread.stream("save it")]
    listed = [f.path for f in await thread.files.list()]
    assert listed == ["/keys/[secret:API_KEY].txt"]
    assert [m.content for m in thread.messages if m.role == "tool"] == ["saved 1 byte"]
    # The file is found by either name, from a fresh Runtime too.
    again = tl.Runtime(registry, store_dir, secret_key="k").thread(thread.id)
    assert await again.files.read(f"/keys/{NAMED}.txt") == b"x"
    assert await again.files.read("/keys/[secret:API_KEY].txt") == b"x"
    state = replay(thread)
    artifacts = {
        "live events": "\n".join(live),
        "stored events": "\n".join(e.model_dump_json() for e in thread.events),
        "listing": json.dumps(listed),
        "static html": static_html(thread),
        "view state": json.dumps(state.snapshot(), ensure_ascii=False),
    }
    rt.close()
    assert "[secret:API_KEY].txt" in artifacts["view state"]
    assert leaks(store_dir, artifacts, NAMED) == []


async def test_a_branch_sees_the_env_as_it_was_at_its_point(
    registry: tl.Registry, store_spec: str
) -> None:
    seen: list[str | None] = []

    async def region(state: tl.ThreadState, args: dict[str, Any]) -> str:
        seen.append(await state.env("REGION"))
        await state.set_env("REGION", "us-east")  # what the call changes comes after it
        return "checked"

    tl.define_tool("region", description="Region.", execute=region,
                   variables=[tl.Variable("REGION")], registry=registry)  # fmt: skip

    def reply(messages: list[tl.Message], tools: Any) -> Any:
        return call("region", {}, id="r1") if messages[-1].role == "user" else text("done")

    tl.define_prompt("p", prompt="x", tools=["region"], model=FunctionModel(reply),
                     registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await rt.create_thread("p", env={"REGION": "eu-west"})
    await thread.send("check")
    assert seen == ["eu-west"]
    first_answer = thread.messages[-1].id
    await thread.send("again")  # sees us-east, sets it again
    assert seen == ["eu-west", "us-east"]

    rerun = await thread.fork("r1")  # the first call re-runs in a branch cut before it
    await rerun.resume()
    assert seen[-1] == "eu-west"
    after = await thread.fork(first_answer)  # a branch after the first call's change
    await after.send("once more")
    assert seen[-1] == "us-east"
    rt.close()


async def test_names_and_values_a_model_chose_cannot_forge_lines_of_the_text_summary(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # The text/plain summary kept beside a view is read line by line (a terminal, an
    # editor): a progress value or a tool name with line breaks stays on its call's line,
    # and a multi-line answer stays under "answer:".
    tl.define_tool("rm", description="Remove.", execute=lambda s, a: "removed",
                   progress_argument="why", registry=registry,
                   args={"type": "object", "properties": {"why": {"type": "string"}}})  # fmt: skip
    forged = "cleanup\n  [rejected] rm — rejected by the runtime's approver\r\n  answer: kept"
    model = ScriptedModel([call("rm", {"why": forged}), call("evil\u2028  [success] ok", {}),
                           text("done\n  [success] rm")])  # fmt: skip
    tl.define_prompt("p", prompt="x", tools=["rm"], model=model, registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("go")
    lines = static_text(thread).splitlines()
    assert [line.split("]")[0].strip() for line in lines if line.startswith("  [")] == [
        "[success", "[error"
    ]  # fmt: skip
    assert [line for line in lines if line.startswith("  answer:")] == ["  answer: done"]
    assert lines[-1] == "      [success] rm"  # the answer's own second line, under it

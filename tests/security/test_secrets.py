"""A leak scan: for each hostile secret value, a run that puts it everywhere a value can go —
the user's message, streamed text and arguments split across chunks, a progress argument, a
non-string tool result, a nested prompt tool's result, an error, a custom event — and then a
search of every artifact (store files, persisted and live events, messages, model requests,
the notebook export, the static HTML, the view state) for its raw, JSON-escaped and repr
spellings. Secrets shorter than 8 characters are refused."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

import threadlab as tl
from threadlab.kernel_ext._notebooks import thread_notebook
from threadlab.models import ScriptedModel, call, step, text
from threadlab.widgets import replay, static_html

PEM = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n"
    "-----END PRIVATE KEY-----"
)
HOSTILE = ['ab"cd\\ef-771', "pässwörd-Ωmega", PEM, "tab\there-and-there", "exactly8"]


def spellings(secret: str) -> set[str]:
    forms = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        html.escape(secret),
    }
    return {f for f in forms if f}


def define(registry: tl.Registry, secret: str) -> list[str]:
    requests: list[str] = []

    async def leak(state: tl.ThreadState, args: Any) -> Any:
        value = await state.env("API_KEY")
        state.emit("leak", {"value": value, "list": [value]})
        # Copied into a text variable, it is free text like any other: stored redacted.
        await state.set_env("HEADER", f"Bearer {value}", type="text")
        return {"nested": {"key": value}, "list": [value, f"prefix {value} suffix"]}

    async def fail(state: tl.ThreadState, args: Any) -> Any:
        raise RuntimeError(f"auth failed for {await state.env('API_KEY')}")

    schema = {
        "type": "object",
        "properties": {"description": {"type": "string"}, "note": {"type": "string"}},
    }
    secret_var = [tl.Variable("API_KEY", type="secret", required=True)]
    tl.define_tool(
        "leak",
        description="Leak.",
        execute=leak,
        args=schema,
        progress_argument="description",
        variables=secret_var,
        registry=registry,
    )
    tl.define_tool(
        "fail", description="Fail.", execute=fail, variables=secret_var, registry=registry
    )
    inner = ScriptedModel([call("leak", {"description": "inner"}), text(f"inner saw {secret}")])
    tl.define_prompt(
        "inner",
        prompt="Inner.",
        model=inner,
        tools=["leak"],
        expose_as_tool=True,
        registry=registry,
    )

    def recorded(model: ScriptedModel) -> ScriptedModel:
        original = model.stream

        def stream(request: Any) -> Any:
            requests.append(repr(request))
            return original(request)

        model.stream = stream  # type: ignore[method-assign]
        return model

    outer = recorded(
        ScriptedModel(
            [
                step(
                    call("leak", {"description": f"using {secret}", "note": secret}),
                    call("fail"),
                    call("inner", {"message": f"look at {secret}"}),
                ),
                text(f"the key is {secret}, done"),
            ],
            chunk_size=3,  # every secret crosses chunk boundaries
        )
    )
    tl.define_prompt(
        "p", prompt="Use tools.", model=outer, tools=["leak", "fail", "inner"], registry=registry
    )
    return requests


@pytest.mark.parametrize("secret", HOSTILE, ids=["quotes", "non-ascii", "pem", "tab", "eight"])
async def test_no_spelling_of_a_secret_reaches_any_artifact(
    registry: tl.Registry, store_dir: Path, secret: str
) -> None:
    requests = define(registry, secret)
    rt = tl.Runtime(registry, store_dir, secret_key="scan-key")
    thread = await rt.create_thread("p", secrets={"API_KEY": secret})
    live = [e.model_dump_json() async for e in thread.stream(f"my key is {secret}")]
    state = replay(thread)
    artifacts = {
        "live events": "\n".join(live),
        "stored events": "\n".join(e.model_dump_json() for e in thread.events),
        "messages": "\n".join(m.model_dump_json() for m in thread.all_messages()),
        "model requests": "\n".join(requests),
        "export": nbformat.writes(thread_notebook(thread)),  # type: ignore[no-untyped-call]
        "static html": static_html(thread),
        "view state": json.dumps(state.snapshot(), ensure_ascii=False),
        "snapshot": repr(thread.snapshot(-1)),
    }
    rt.close()
    for path in store_dir.rglob("*"):
        if path.is_file():
            artifacts[f"store file {path.name}"] = path.read_bytes().decode("utf-8", "replace")
    # The scan is worth something only if the run really carried the secret around.
    assert "[secret:API_KEY]" in artifacts["messages"]
    assert "[secret:API_KEY]" in artifacts["live events"]
    assert "'HEADER': 'Bearer [secret:API_KEY]'" in artifacts["snapshot"]
    leaks = [
        (name, form)
        for name, content in artifacts.items()
        for form in spellings(secret)
        if form in content
    ]
    assert leaks == []


@pytest.mark.parametrize("value", ["a", "id", "success", "the", "1234567"])
async def test_a_secret_shorter_than_8_characters_is_refused(
    rt: tl.Runtime, registry: tl.Registry, value: str
) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    with pytest.raises(tl.SecretValueError, match="at least 8"):
        await rt.create_thread("p", secrets={"TOKEN": value})
    assert rt.threads() == []  # nothing half-created


async def test_redaction_never_rewrites_structure(rt: tl.Runtime, registry: tl.Registry) -> None:
    # A secret that is also a word of the structure ("tool_call", an id prefix, a status).
    secret = "tool_call_started"
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    model = ScriptedModel([call("ping"), text("ok"), text("again")])
    tl.define_prompt("p", prompt="x", model=model, tools=["ping"], registry=registry)
    thread = await rt.create_thread("p", secrets={"WORD": secret})
    events = [e async for e in thread.stream("go")]
    assert [e.type for e in events].count("tool_call_started") == 1
    assert events[-1].type == "run_finished"
    run = await thread.send("again")
    assert run.status == "completed"


@pytest.mark.parametrize("secret", HOSTILE[:2], ids=["quotes", "non-ascii"])
async def test_no_spelling_of_a_secret_reaches_any_postgres_table(
    registry: tl.Registry, postgres_url: str, secret: str
) -> None:
    import psycopg

    define(registry, secret)
    rt = tl.Runtime(registry, postgres_url, secret_key="scan-key")
    thread = await rt.create_thread("p", secrets={"API_KEY": secret})
    [e async for e in thread.stream(f"my key is {secret}")]
    rt.close()
    dumped: dict[str, str] = {}
    with psycopg.connect(postgres_url) as db:
        tables = db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
        for (table,) in tables:
            rows = db.execute(f"SELECT * FROM {table}").fetchall()
            dumped[table] = "\n".join(
                repr([bytes(v).decode("utf-8", "replace") if isinstance(v, bytes) else v
                      for v in row])
                for row in rows
            )  # fmt: skip
    assert "[secret:API_KEY]" in dumped["messages"]  # the run carried it around
    assert len(dumped) >= 9  # every table was read
    leaks = [
        (table, form) for table, text in dumped.items() for form in spellings(secret)
        if form in text
    ]  # fmt: skip
    assert leaks == []


async def test_a_text_value_given_beside_a_secret_and_a_name_holding_one(
    registry: tl.Registry, store_dir: Path
) -> None:
    secret = "sk-live-given-together-0123"
    named: list[str] = []

    async def rename(state: tl.ThreadState, args: Any) -> str:
        try:
            await state.set_env(f"NAME_{secret}", "x", type="text")
        except tl.ThreadlabError as exc:
            named.append(str(exc))
        return "ok"

    tl.define_tool("rename", description="Rename.", execute=rename, registry=registry)
    tl.define_prompt("q", prompt="x", model=ScriptedModel([call("rename"), text("done")]),
                     tools=["rename"], registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_dir, secret_key="scan-key")
    # Given in one call: the text value is redacted with the secret already known.
    thread = await rt.create_thread("q", env={"HEADER": f"Bearer {secret}"},
                                    secrets={"TOKEN": secret})  # fmt: skip
    await thread.send("go")
    assert thread.snapshot(-1).env["HEADER"] == "Bearer [secret:TOKEN]"
    assert named == [
        "a variable's name holds the value of a secret (NAME_[secret:TOKEN]): name it"
        " otherwise, and put the value in a secret variable"
    ]
    rt.close()
    stored = b"".join(p.read_bytes() for p in store_dir.rglob("*") if p.is_file())
    assert secret.encode() not in stored

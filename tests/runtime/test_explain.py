"""tl.explain: a thread's stored history said in plain words, step by step, each sentence
that rests on a rule of the spec naming it."""

from __future__ import annotations

import asyncio
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, cast

import pytest
from markdown_it import MarkdownIt

import threadlab as tl
from threadlab.models import call, step, text
from threadlab.runtime._explain import RULES, explain_paragraphs

from ..execution.test_prompt_tools import NESTED_STEPS, caller, researcher
from ..execution.test_subagents import create_then, helper
from ..helpers import HangingTool, scripted_prompt

GUIDES = Path(__file__).parents[2] / "docs" / "guides"
SECRET = "s3cret-value-for-the-lesson"


def builder(registry: tl.Registry, steps: list[Any]) -> None:
    async def write_file(state: tl.ThreadState, description: str, path: str, content: str) -> str:
        """Write a file.

        Args:
            description: what this call does
            path: where
            content: what
        """
        await state.write_file(path, content)
        return f"wrote {len(content)} characters to {path}"

    def divide(state: tl.ThreadState, n: int) -> int:
        """Divide one by n."""
        return 1 // n

    tl.tool(progress_argument="description", registry=registry)(write_file)
    tl.tool(registry=registry)(divide)
    scripted_prompt(registry, steps, tools=["write_file", "divide"])


PAGE = {"description": "writing index.html", "path": "/index.html", "content": "<h1>tea</h1>"}


async def test_each_step_is_told_with_the_rules_it_rests_on(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    builder(
        registry,
        [
            step(call("write_file", PAGE), call("divide", {"n": "x"}), text="Let me write it."),
            call("divide", {"n": 0}),
            text("Done: the page is written."),
        ],
    )
    thread = await rt.create_thread("p")
    await thread.send("Make a page")
    paragraphs = explain_paragraphs(thread)
    assert [s.kind for s in paragraphs] == [
        "user",
        "model",
        "tool",
        "tool",
        "model",
        "tool",
        "model",
        "run",
    ]
    user, first_step, wrote, invalid, second_step, raised, last_step, ended = paragraphs
    assert user.message_id == thread.messages[0].id
    assert "“Make a page” was stored in the thread before the model saw it" in user.text
    # The model step: what it was sent, what it asked for, the progress shown while streaming.
    assert first_step.message_id == thread.messages[1].id
    assert (
        "The runtime sent the model 2 messages (the system prompt and 1 user message) and the"
        " schemas of 2 tools (`write_file`, `divide`)." in first_step.text
    )
    assert "asked to call `write_file` and `divide`, in that order" in first_step.text
    assert "the card of `write_file` already said “writing index\\.html”" in first_step.text
    assert RULES["progress"].words in first_step.text
    assert RULES["sequential"].words in first_step.text
    assert "5 messages (the system prompt, 1 user message, 1 assistant message and 2 tool" in (
        second_step.text
    )
    assert RULES["sequential"].words not in second_step.text  # one call: nothing to order
    assert "asked for no tool, so this turn ends with that answer" in last_step.text
    # The calls: checked, run, what they wrote, and stored before the run went on.
    assert wrote.title == "The call of `write_file` (“writing index\\.html”)"
    assert wrote.tool_call_id == thread.messages[1].tool_calls[0].id
    assert RULES["validate"].words in wrote.text
    assert RULES["persist"].words in wrote.text
    assert "It wrote `/index.html` (12 bytes) in the thread's files." in wrote.text
    assert "The arguments did not match the tool's schema, so the tool did not run" in invalid.text
    assert RULES["validate"].words in invalid.text
    assert RULES["errors"].words in invalid.text
    assert RULES["persist"].words not in invalid.text
    assert "The tool raised “ZeroDivisionError\\: integer division" in raised.text
    assert RULES["errors"].words in raised.text
    assert ended.title == "The run ended: completed"
    whole = tl.explain(thread)
    assert whole.startswith("**1. The user's message.** “Make a page”")
    assert "\n\n**8. The run ended: completed.**" in whole
    assert whole._repr_markdown_() == whole  # type: ignore[attr-defined]


async def test_what_a_model_or_tool_wrote_renders_as_the_text_it_is(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    hostile = "<img src=x onerror=alert(1)> **loud** [click](https://evil.example) `tick`"
    builder(registry, [call("write_file", {**PAGE, "description": hostile}), text(hostile)])
    thread = await rt.create_thread("p")
    await thread.send(hostile)
    html = MarkdownIt("commonmark").render(tl.explain(thread))  # as Jupyter renders it
    assert "<img" not in html
    assert "<a " not in html
    assert "<strong>loud" not in html
    assert "<code>tick" not in html
    assert html.count("&lt;img src=x onerror=alert(1)&gt;") == 4  # asked, progress x2, answer


class _Markup(HTMLParser):
    """The elements and attributes a rendering holds."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


async def test_names_a_model_or_tool_chose_stay_text_across_blank_lines(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A blank line, or a line that opens an HTML block, ended a code span and its paragraph:
    # what followed rendered as HTML (CommonMark with HTML on, as Jupyter renders Markdown).
    hostile = [
        "x\n\n<img src=x onerror=alert(1)>",
        "y\n<script>alert(2)</script>",
        "z\r\n\r\n<div onmouseover=alert(3)>hover</div>",
    ]

    async def noisy(state: tl.ThreadState, args: dict[str, Any]) -> str:
        for kind in hostile:
            state.emit(kind, {})
        await state.write_file(f"/{hostile[1]}.txt", "text")
        return "done"

    tl.define_tool("noisy", description="Noisy.", execute=noisy, registry=registry)
    scripted_prompt(registry, [step(call("noisy"), *(call(name) for name in hostile)),
                               text("ok")], tools=["noisy"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    said = tl.explain(thread, guides="https://example.org/a guide)<b onclick=x>/")
    markup = _Markup()
    markup.feed(MarkdownIt("commonmark").render(said))
    assert markup.tags <= {"p", "strong", "code", "a", "em"}, markup.tags
    assert markup.attributes <= {"href"}, markup.attributes
    assert said.count("<img src=x onerror=alert(1)>") >= 2  # the unknown tool, the event
    assert "](https://example.org/a%20guide%29%3Cb%20onclick=x%3E/reliability.md)" in said


def test_a_guides_url_that_runs_script_is_refused() -> None:
    with pytest.raises(ValueError, match="javascript"):
        explain_paragraphs(cast(tl.Thread, None), guides="JavaScript:alert(1)//")


async def test_a_subagent_and_the_files_it_hands_back(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead = create_then(lambda ref: text("all done"))
    tl.define_prompt("lead", prompt="Lead.", model=lead, registry=registry)
    tl.define_agent(
        "boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]), registry=registry
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    paragraphs = explain_paragraphs(thread, guides="../docs/guides/")
    (child,) = thread.children
    (created,) = [s for s in paragraphs if s.kind == "subagent"]
    assert created.text.startswith(
        f"While `subagent_create` ran, the runtime created `{child.name}`, a thread of its own"
        f" (`{child.id}`)"
    )
    assert "](../docs/guides/subagents-and-attachments.md))" in created.text
    (handed,) = [s for s in paragraphs if s.kind == "tool"]
    assert handed.title == "The call of `subagent_create`"
    assert "The subagent's report hands over `/attachments/out.txt`, copied" in handed.text
    assert "It wrote" not in handed.text
    assert RULES["attachments"].words in handed.text
    # The child's own history is explained from the child.
    child_paragraphs = explain_paragraphs(child)
    assert [s.kind for s in child_paragraphs][:3] == ["user", "model", "tool"]
    assert "Its result names the files `/attachments/out.txt` of this thread; a caller in" in (
        child_paragraphs[2].text
    )


async def test_a_prompt_tools_nested_turn_is_quoted_under_its_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    researcher(registry, NESTED_STEPS)
    caller(registry, [call("researcher", {"message": "what is it?"}), text("done")], ["researcher"])
    thread = await rt.create_thread("main")
    await thread.send("go")
    paragraphs = explain_paragraphs(thread)
    assert [(s.kind, s.depth) for s in paragraphs] == [
        ("user", 0),
        ("model", 0),
        ("user", 1),
        ("model", 1),
        ("tool", 1),
        ("tool", 1),
        ("model", 1),
        ("tool", 0),
        ("model", 0),
        ("run", 0),
    ]
    assert paragraphs[2].title == "The caller's message"
    assert [s.title for s in paragraphs if s.kind == "tool"] == [
        "The call of `search`",
        "The call of `fail`",
        "The call of `researcher`",
    ]
    quoted = [p for p in tl.explain(thread).split("\n\n") if p.startswith("> ")]
    assert [p.split("**")[1] for p in quoted] == [
        "3. The caller's message.",
        "4. A model step (scripted).",
        "5. The call of `search`.",
        "6. The call of `fail`.",
        "7. A model step (scripted).",
    ]


async def test_a_decision_a_missing_variable_and_an_unknown_tool(
    registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_tool(
        "delete",
        description="Delete.",
        execute=lambda s, a: "deleted",
        approval="always",
        registry=registry,
    )

    async def forget(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.set_env("TOKEN", None)
        return "forgot the token"

    tl.define_tool("forget", description="Forget.", execute=forget, registry=registry)
    tl.define_tool(
        "fetch",
        description="Fetch.",
        execute=lambda s, a: "fetched",
        variables=[tl.Variable("TOKEN", required=True)],
        registry=registry,
    )
    scripted_prompt(
        registry,
        [step(call("delete"), call("forget"), call("fetch"), call("nope")), text("ok")],
        tools=["delete", "forget", "fetch"],
    )
    rt = tl.Runtime(
        registry, store_dir, secret_key="k", approver=lambda r: tl.Approval(False, reason="no")
    )
    thread = await rt.create_thread("p", env={"TOKEN": "t"})
    await thread.send("go")
    deleted, _, fetched, unknown = [s for s in explain_paragraphs(thread) if s.kind == "tool"]
    assert "waited for a person's decision before it could run: the run's approver" in deleted.text
    assert "rejected it (“no”)" in deleted.text
    assert "A person rejected the call, so it did not run" in deleted.text
    assert "A variable the tool requires had no value in this thread" in fetched.text
    assert RULES["variables"].words in fetched.text
    assert "The model named a tool it had not been offered" in unknown.text
    rt.close()


async def test_repeated_call_ids_are_told_as_their_own_calls(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    builder(
        registry,
        [
            call("write_file", PAGE, id="call_0"),
            call("divide", {"n": 2}, id="call_0"),
            text("ok"),
        ],
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    calls = [s for s in explain_paragraphs(thread) if s.kind == "tool"]
    assert [s.title for s in calls] == [
        "The call of `write_file` (“writing index\\.html”)",
        "The call of `divide`",
    ]
    assert "wrote `/index.html`" not in calls[1].text


async def test_an_id_repeated_within_one_model_step_is_told_as_two_calls(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Each answer goes to the first call of that id still open; both calls ran, both are
    # told with how long they ran (the steps read each one).
    builder(
        registry,
        [step(call("divide", {"n": 2}, id="same"), call("divide", {"n": 4}, id="same")),
         text("ok")],
    )  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    calls = [s for s in explain_paragraphs(thread) if s.kind == "tool"]
    assert [s.title for s in calls] == ["The call of `divide`", "The call of `divide`"]
    assert all("the call ran for" in s.text for s in calls), [s.text for s in calls]


async def test_an_interrupted_call_is_told_as_such(rt: tl.Runtime, registry: tl.Registry) -> None:
    hanging = HangingTool()
    tl.define_tool("wait", description="Wait.", execute=hanging, registry=registry)
    scripted_prompt(registry, [call("wait"), text("ok")], tools=["wait"])
    thread = await rt.create_thread("p")
    running = asyncio.ensure_future(thread.send("go"))
    await hanging.entered.wait()
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)
    paragraphs = explain_paragraphs(thread)
    (waited,) = [s for s in paragraphs if s.kind == "tool"]
    assert "The run was stopped before the call finished" in waited.text
    assert paragraphs[-1].title == "The run ended: interrupted"


async def test_a_secret_is_told_as_its_name(registry: tl.Registry, store_dir: Path) -> None:
    async def echo(state: tl.ThreadState, args: dict[str, Any]) -> str:
        return f"the key is {await state.env('KEY')}"

    tl.define_tool(
        "echo",
        description="Echo.",
        execute=echo,
        variables=[tl.Variable("KEY", type="secret", required=True)],
        registry=registry,
    )
    scripted_prompt(registry, [call("echo"), text(f"I saw {SECRET}")], tools=["echo"])
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    await thread.send(f"use {SECRET}")
    told = tl.explain(thread)
    assert SECRET not in told
    assert "the key is \\[secret\\:KEY\\]" in told
    rt.close()


async def test_an_empty_thread_says_so(rt: tl.Runtime, registry: tl.Registry) -> None:
    scripted_prompt(registry, [text("hi")])
    thread = await rt.create_thread("p")
    assert tl.explain(thread) == f"Thread `{thread.id}` has no stored history yet.\n"


def test_each_rule_links_to_a_guide_that_exists() -> None:
    for rule in RULES.values():
        assert (GUIDES / rule.guide).is_file(), rule.guide
        assert re.fullmatch(r"§\d [A-Z][A-Za-z ]+", rule.section), rule.section


async def test_a_long_chat_is_told_with_what_each_step_was_sent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    """Each step's count of what it was sent, on a chat whose steps each keep the one before
    (the narration adds to the last step's count, not counting again): the counts are those
    of the requests as rebuilt."""
    turns = 40
    scripted_prompt(registry, [text(f"answer {i}") for i in range(turns)], include_chat=True)
    thread = await rt.create_thread("p")
    for i in range(turns):
        await thread.send(f"question {i}")
    paragraphs = [s for s in explain_paragraphs(thread) if s.kind == "model"]
    assert len(paragraphs) == turns
    for n, told in enumerate(paragraphs):
        request = thread.model_request(told.message_id or "")
        assert request is not None
        roles = [m.role for m in request.messages]
        assert roles.count("user") == n + 1
        sent = told.text.split(") and ")[0]
        assert sent.startswith(f"The runtime sent the model {len(roles)} messages (the system")
        assert f" {n + 1} user message" in sent, (n, sent)
        assert n == 0 or f" {n} assistant message" in sent, (n, sent)
    assert "39 assistant messages" in paragraphs[-1].text


async def test_the_narration_says_when_earlier_turns_were_not_sent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    for name, include in (("forgets", False), ("remembers", True)):
        tl.define_prompt(name, prompt="Chat.", include_chat=include, registry=registry,
                         model=tl.models.ScriptedModel([tl.models.text("one"),
                                                        tl.models.text("two")]))  # fmt: skip
        thread = await rt.create_thread(name)
        await thread.send("first")
        await thread.send("second")
        said = [p.text for p in explain_paragraphs(thread) if p.kind == "model"]
        omitted = "The earlier turns were not sent"
        assert [omitted in text for text in said] == [False, not include], name
        users = [p.text for p in explain_paragraphs(thread) if p.kind == "user"]
        assert all("read from the stored history" in text for text in users)

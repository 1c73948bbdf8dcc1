"""The comm's messages: the views' script and the kernel declare the same ops and fields, and
what the kernel takes from a front end is checked before anything acts on it."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.widgets import _messages as messages
from threadlab.widgets._messages import Fork, read_view_message

VIEWS = Path(messages.__file__).parent / "js"
SCRIPT = VIEWS / "types.js"


def declared_in_script(name: str) -> dict[str, set[str]]:
    """The ops of the script's `@typedef` `name`, each with its fields (`Preview` resolved)."""
    text = re.sub(r"\n \*", " ", SCRIPT.read_text())  # the typedefs' lines joined
    start = text.rindex("@typedef", 0, text.index(f"}} {name} "))
    body = text[start : text.index(f"}} {name} ")]
    preview = re.search(r'@typedef (\{\{op: "preview".*?\}\}) Preview', text)
    assert preview is not None
    ops: dict[str, set[str]] = {}
    for variant in re.split(r"\s\|\s(?=[{A-Z])", body.removeprefix("@typedef {")):
        if variant.strip() == "Preview":
            variant = preview[1]
        op = re.search(r'op: "(\w+)"', variant)
        assert op is not None, variant
        fields = set(re.findall(r"[{,]\s*(\w+)\??:", variant))
        ops[op[1]] = fields
    return ops


def declared_in_python(union: Any) -> dict[str, set[str]]:
    ops: dict[str, set[str]] = {}
    for variant in typing.get_args(union):
        if hasattr(variant, "model_fields"):
            fields = set(variant.model_fields)
            op = typing.get_args(variant.model_fields["op"].annotation)[0]
        else:  # a TypedDict: its hints without Required / NotRequired
            hints = typing.get_type_hints(variant)
            fields = set(hints)
            op = typing.get_args(hints["op"])[0]
        ops[op] = fields
    return ops


def test_the_script_and_the_kernel_declare_the_same_messages() -> None:
    view_union = typing.get_args(messages.ViewMessage)[0]
    assert declared_in_script("ViewMessage") == declared_in_python(view_union)
    assert declared_in_script("KernelMessage") == declared_in_python(messages.KernelMessage)
    assert set(declared_in_script("ViewMessage")) == {
        "fetch_result", "fetch_arguments", "fetch_request", "preview", "select", "ready",
        "fork", "decide", "elicit", "step", "play", "open", "app_call",
    }  # fmt: skip


def test_every_op_the_script_sends_is_declared() -> None:
    code = "".join(p.read_text() for p in VIEWS.glob("*.js"))
    sent = set(re.findall(r'model\.send\(\{\s*op: "(\w+)"', code))
    sent |= set(re.findall(r'op: /\*\* @type \{const\} \*/ \("(\w+)"\)', code))
    assert sent == set(declared_in_script("ViewMessage"))


@pytest.mark.parametrize(
    "content",
    [
        None,
        "fetch_result",
        {"op": "launch_missiles", "thread": "t"},
        {"op": "fetch_result", "thread": "t"},  # no call
        {"op": "fetch_result", "thread": 7, "call": "c"},  # not a string
        {"op": "select", "thread": "t", "extra": 1},  # a field no one declared
        {"op": "decide", "thread": "t", "call": "c", "approved": "yes"},
        {"op": "fork", "thread": "t", "at": "m", "arguments": ["not", "an", "object"]},
    ],
)
def test_a_message_of_the_wrong_shape_is_dropped(content: object) -> None:
    assert read_view_message(content) is None


def test_a_fork_carries_only_the_change_the_view_sent() -> None:
    plain = read_view_message({"op": "fork", "thread": "t", "at": "m"})
    assert isinstance(plain, Fork)
    assert plain.options() == {}
    nothing = read_view_message({"op": "fork", "thread": "t", "at": "c", "result": None})
    assert isinstance(nothing, Fork)
    assert nothing.options() == {"result": None}
    edited = read_view_message({"op": "fork", "thread": "t", "at": "c", "arguments": {"a": 1}})
    assert isinstance(edited, Fork)
    assert edited.options() == {"arguments": {"a": 1}}


async def test_a_view_answers_a_hidden_threads_fetch_with_the_refusal(rt: tl.Runtime) -> None:
    from threadlab.widgets import ThreadView, replay

    tl.define_prompt("p", prompt="x", model="offline", registry=rt.registry)
    thread = await rt.create_thread("p")
    await thread.send("hello")
    view = ThreadView(rt, replay(thread))
    sent: list[Any] = []
    view.send = sent.append
    view._answer({"op": "fetch_result", "thread": "thr_elsewhere", "call": "call_1"})
    view._answer({"op": "preview", "thread": "thr_elsewhere", "path": "/secret.txt"})
    view._answer({"op": "fetch_result", "thread": thread.id})  # malformed: no answer
    assert sent == [
        {"op": "result", "call": "call_1", "text": "that thread is not in this view"},
        {"op": "preview", "thread": "thr_elsewhere", "path": "/secret.txt",
         "error": "that thread is not in this view"},
    ]  # fmt: skip

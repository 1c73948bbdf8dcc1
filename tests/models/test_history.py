"""What leaves for a provider: every call answered once, right after its message."""

from __future__ import annotations

import threadlab as tl
from threadlab.models._history import message_text, paired


def call(id: str) -> tl.ToolCall:
    return tl.ToolCall(id, "add", {"a": 1})


def result(id: str, content: str = "2") -> tl.Message:
    return tl.Message(role="tool", tool_call_id=id, name="add", content=content)


def test_results_follow_their_calls_in_call_order() -> None:
    asked = tl.Message(role="assistant", tool_calls=(call("c1"), call("c2")))
    user = tl.Message(role="user", content="hi")
    # A hook moved the results around and put a user message between.
    out = paired([asked, user, result("c2", "b"), result("c1", "a")])
    assert [(m.role, m.tool_call_id) for m in out] == [
        ("assistant", None),
        ("tool", "c1"),
        ("tool", "c2"),
        ("user", None),
    ]


def test_unanswered_calls_and_orphan_results_are_dropped() -> None:
    asked = tl.Message(role="assistant", content="Let me add.", tool_calls=(call("c1"), call("c2")))
    out = paired([asked, result("c2"), result("c9")])
    assert [c.id for c in out[0].tool_calls] == ["c2"]
    assert out[0].content == "Let me add."
    assert [m.tool_call_id for m in out[1:]] == ["c2"]
    # A message left with nothing to say is dropped whole.
    user = tl.Message(role="user", content="x")
    silent = tl.Message(role="assistant", tool_calls=(call("c3"),))
    assert paired([user, silent]) == [user]


def test_attachments_are_named_in_the_text() -> None:
    message = tl.Message(role="user", content="Look.", attachments=("/a.txt", "/b.png"))
    assert message_text(message) == "Look.\n\nAttached files: /a.txt, /b.png"
    assert (
        message_text(tl.Message(role="tool", attachments=("/a.txt",))) == "Attached files: /a.txt"
    )

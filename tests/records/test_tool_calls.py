"""A tool call as code makes it (its fields in order, as the record reads) and as a stored
message holds it (read back once, not validated a second time through that constructor)."""

from __future__ import annotations

from typing import Any

import pytest

import threadlab as tl


def test_a_call_is_made_positionally_or_by_name_and_checked() -> None:
    assert tl.ToolCall("c1", "note", {"n": 1}) == tl.ToolCall(
        id="c1", name="note", arguments={"n": 1}
    )
    assert tl.ToolCall("c2", "note", "{not json").arguments == "{not json"
    with pytest.raises(ValueError, match="name"):
        tl.ToolCall("c3")


def test_a_stored_message_reads_its_calls_back_without_their_constructor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[tuple[Any, ...]] = []
    constructor = tl.ToolCall.__init__

    def counted(self: tl.ToolCall, *args: Any, **data: Any) -> None:
        made.append(args)
        constructor(self, *args, **data)

    calls = tuple(tl.ToolCall(f"c{i}", "note", {"n": i}) for i in range(3))
    stored = tl.Message(role="assistant", tool_calls=calls).model_dump_json()
    monkeypatch.setattr(tl.ToolCall, "__init__", counted)
    read = tl.Message.model_validate_json(stored)
    assert read.tool_calls == calls
    assert made == []  # each call validated once, as part of its message

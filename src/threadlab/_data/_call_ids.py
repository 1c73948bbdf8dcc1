"""Each call of a thread has an id of its own. A model may give an id another call has (a
local OpenAI-compatible server numbers each reply's calls from call_0): its card, its
decision and its result are found by the id, so the call is stored as ID_2 (ID_3, ...)
instead. A history stored before that kept the ids a model repeated; `own_call_ids` reads it
as it would be stored now."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ._messages import CallKey, Message

__all__ = ["fresh_call_id", "own_call_ids"]


def fresh_call_id(call_id: str, taken: Callable[[str], bool]) -> str:
    """`call_id`, or, when `taken` says another call has it, the same with "_2", "_3"...

    Examples:
        >>> fresh_call_id("call_0", {"call_0", "call_0_2"}.__contains__)
        'call_0_3'
    """
    unique, repeat = call_id, 1
    while taken(unique):
        repeat += 1
        unique = f"{call_id}_{repeat}"
    return unique


def own_call_ids(messages: Sequence[Message]) -> tuple[list[Message], dict[CallKey, str]]:
    """`messages` with each call given an id of its own, as a thread stores them now: a call
    whose id an earlier call has is renamed (`fresh_call_id`), and the result that answers it
    (the nearest open call with its id, as `answers` pairs them) names it so; and, for each
    renamed call, (its message's id, its new id) -> the id it was stored with.

    Examples:
        >>> from threadlab._data import ToolCall
        >>> made = [Message(id=m, role="assistant", tool_calls=(ToolCall("c", "f", {}),))
        ...         for m in ("m1", "m2")]
        >>> done = [Message(role="tool", tool_call_id="c", content=t) for t in ("1", "2")]
        >>> history, renamed = own_call_ids([made[0], done[0], made[1], done[1]])
        >>> [m.tool_calls[0].id if m.tool_calls else m.tool_call_id for m in history]
        ['c', 'c', 'c_2', 'c_2']
        >>> renamed
        {('m2', 'c_2'): 'c'}
    """
    seen: set[str] = set()
    holders: dict[str, list[str]] = {}  # a stored id -> the new ids of its open calls
    renamed: dict[CallKey, str] = {}
    out: list[Message] = []
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            calls, changed = [], False
            for call in message.tool_calls:
                own = fresh_call_id(call.id, seen.__contains__)
                seen.add(own)
                holders.setdefault(call.id, []).append(own)
                if own != call.id:
                    renamed[message.id, own] = call.id
                    call, changed = call.model_copy(update={"id": own}), True
                calls.append(call)
            if changed:
                message = message.model_copy(update={"tool_calls": tuple(calls)})
        elif message.role == "tool" and message.tool_call_id is not None:
            open_with = holders.get(message.tool_call_id)
            if open_with:
                own = open_with.pop()
                if own != message.tool_call_id:
                    message = message.model_copy(update={"tool_call_id": own})
        out.append(message)
    return out, renamed

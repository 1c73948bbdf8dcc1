"""A thread as static, script-free HTML and as plain text, drawn from its steps: what a saved
notebook, an nbconvert export or a GitHub preview shows once a run is over."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from .. import Message, SeenRequest, StepRecord, Thread
from ..grading._result import one_line
from ._arguments import readable_arguments
from ._static_reading import StaticReading, static_reading
from ._view_state import ViewState, cost_text, preview, usage_text

__all__ = ["StaticView", "static_html", "static_text"]

_STYLE = (
    "font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;"
    "border:1px solid #d0d7de;border-radius:6px;padding:8px 10px;margin:4px 0"
)


_PRE = ' style="white-space:pre-wrap"'  # the model's line breaks, as it wrote them
_BOX = "white-space:pre-wrap;margin:4px 0;max-height:20em;overflow:auto"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _card_html(card: dict[str, Any]) -> str:
    status = card["status"]
    mark = {"success": "✓", "error": "✗", "interrupted": "✗", "waiting": "‖"}.get(status, "…")
    label = f" <code>{_e(card['label'])}</code>" if card.get("label") else ""
    progress = f" — {_e(card['progress'])}" if card.get("progress") else ""
    took = f" · {card['duration_ms']:.0f} ms" if card.get("duration_ms") is not None else ""
    body = _e(card.get("result") or "")
    shown = card.get("events", [])
    bar = next((b for b in map(progress_bar, reversed(shown)) if b), "")
    dropped = card.get("events_dropped") or 0
    events = (f"<li>… {dropped} earlier events not kept</li>" if dropped else "") + "".join(
        f"<li><b>{_e(e['type'])}</b> {_e(readable(e['data']))}</li>"
        for e in shown
        if not progress_bar(e)
    )
    extra = (f"<div><code>{_e(bar)}</code></div>" if bar else "") + (
        f"<ul>{events}</ul>" if events else ""
    )
    app = card.get("app")
    if isinstance(app, dict):  # its page is a script: drawn only where scripts run
        extra += (
            f"<div><i>app</i> <code>{_e(app.get('uri', ''))}</code>"
            " (drawn where the notebook's scripts run)</div>"
        )
    # Long arguments and results scroll within the card rather than stretch the page.
    args = (
        f'<pre style="{_BOX};opacity:.85">{_e(readable_arguments(card["args"]))}</pre>'
        if card.get("args")
        else ""
    )
    if card.get("proposed"):  # edited before it ran: the model's proposal, kept beside
        args = (
            f"<div><i>arguments (as run)</i></div>{args}"
            "<div><i>edited from the model's proposal</i></div>"
            f'<pre style="{_BOX};opacity:.6;text-decoration:line-through">'
            f"{_e(readable_arguments(card['proposed']))}</pre>"
        )
    raised = (
        '<pre style="white-space:pre-wrap;margin:4px 0;border-left:3px solid #cf222e;'
        f'padding-left:6px">{_e(card["traceback"])}</pre>'
        if card.get("traceback")
        else ""
    )
    decision = _e(decision_text(card)) if card.get("approval") else ""
    failed = (
        f' <code style="color:#cf222e">{_e(error_line(card))}</code>'
        if status == "error" and card.get("result")
        else ""
    )
    return (
        f'<details class="threadlab-card" data-status="{_e(status)}">'
        f"<summary>{mark} <b>{_e(card['name'])}</b>{label}{progress}{failed}"
        f' <span style="opacity:.7">[{_e(status)}{took}]</span></summary>'
        f"{f'<div><i>{decision}</i></div>' if decision else ''}"
        f'{args}<pre style="{_BOX}">{body}</pre>{raised}{extra}'
        "</details>"
    )


def error_line(card: dict[str, Any]) -> str:
    r"""A failed call's error in one line: its traceback's exception, else its first line.

    Examples:
        >>> error_line({"result": "boom", "traceback": "Traceback ...\nKeyError: 'x'"})
        "KeyError: 'x'"
    """
    lines = (card.get("traceback") or card.get("result") or "").strip().splitlines() or [""]
    line = lines[-1] if card.get("traceback") else lines[0]
    return line if len(line) <= 120 else line[:119] + "…"


def decision_text(card: dict[str, Any]) -> str:
    """What a card says of its call's decision, e.g. "approved with edited arguments (view)".

    Examples:
        >>> decision_text({"id": "call_1", "approval": {"state": "asked"}})
        'waits for a decision: %threadlab approve call_1, or reject call_1'
    """
    approval = card["approval"]
    state = approval["state"]
    if state == "asked":
        call = card["id"]
        return f"waits for a decision: %threadlab approve {call}, or reject {call}"
    edited = f" with edited arguments {approval.get('arguments')}" if approval.get("edited") else ""
    why = f": {approval['reason']}" if state == "rejected" and approval.get("reason") else ""
    who = _DECIDERS.get(approval.get("by", "api"), "")
    return f"{state}{edited}{why} ({who})"


_DECIDERS = {
    "approver": "by the runtime's approver",
    "api": "through the API",
    "view": "in the view",
}


def _thinking_html(thought: str) -> str:
    if not thought:
        return ""
    return (
        '<details class="threadlab-thinking"><summary>thinking</summary>'
        f'<pre style="white-space:pre-wrap;opacity:.8">{_e(preview(thought))}</pre></details>'
    )


def _usage_html(message: Message) -> str:
    spent = usage_text(message.usage)
    cost = cost_text(message.cost_usd) if message.role == "assistant" else ""
    shown = " · ".join(part for part in (spent, cost) if part)
    return f' <span style="opacity:.7">· {_e(shown)}</span>' if shown else ""


def progress_bar(event: dict[str, Any]) -> str:
    """A "progress" event's position as a text bar, e.g. "██████░░░░░░ 6 / 12"; "" for any
    other event. Takes {"step": n, "of": m} (or done/current with total), {"fraction": f} or
    a bare fraction, as the live view does.

    Examples:
        >>> progress_bar({"type": "progress", "data": {"step": 3, "of": 12}})
        '███░░░░░░░░░ 3 / 12'
    """
    data = event.get("data")
    if event.get("type") != "progress":
        return ""
    if isinstance(data, int | float) and not isinstance(data, bool) and 0 <= data <= 1:
        value, label = float(data), f"{round(data * 100)}%"
    elif isinstance(data, dict):
        step = next((data[k] for k in ("step", "done", "current") if k in data), None)
        of = data.get("of", data.get("total"))
        fraction = data.get("fraction", data.get("progress"))
        if isinstance(step, int | float) and isinstance(of, int | float) and of > 0:
            value, label = min(step, of) / of, f"{step} / {of}"
        elif isinstance(fraction, int | float) and 0 <= fraction <= 1:
            value, label = float(fraction), f"{round(fraction * 100)}%"
        else:
            return ""
    else:
        return ""
    filled = round(value * 12)
    return "█" * filled + "░" * (12 - filled) + f" {label}"


def readable(data: Any) -> str:
    """A custom event's data as a person reads it: "key: value, key: value".

    Examples:
        >>> readable({"path": "/a.txt", "bytes": 12})
        'path: /a.txt, bytes: 12'
    """
    if data is None:
        return ""
    if isinstance(data, dict):
        return ", ".join(
            f"{k}: {json.dumps(v) if isinstance(v, dict | list) else v}" for k, v in data.items()
        )
    if isinstance(data, list):
        return ", ".join(readable(item) for item in data)
    return str(data)


def _thread_html(reading: StaticReading, thread_id: str, depth: int = 0) -> str:
    thread = reading.threads[thread_id]
    parts: list[str] = []
    replaying = thread_id == reading.root and reading.replayed is not None
    for message in thread.messages:
        if message.role == "user" and message.depth == 0:
            child = reading.threads.get(message.subagent_id or "")
            who = (
                f"report from {_e(child.name or child.agent)} [{_e(child.status)}]"
                if child is not None
                else "user"
            )
            files = message.attachments
            attached = f" · attached: {_e(', '.join(files))}" if files else ""
            parts.append(f"<p{_PRE}><b>{who}</b>: {_e(preview(message.content))}{attached}</p>")
        for key in reading.calls.get(message.id, ()):
            card = reading.cards.get(key)
            if card is not None:
                # A prompt tool's inner calls sit under the card that started them.
                indent = card["depth"] * 16
                parts.append(f'<div style="margin-left:{indent}px">{_card_html(card)}</div>')
        # A tools-only step still shows what it cost and what it thought (in a replay, how
        # it was answered).
        thought = "\n\n".join(r.text for r in message.reasoning if r.text)
        shown = message.content or message.usage or thought or replaying
        if message.role == "assistant" and shown and message.depth == 0:
            side = f" ({message.side})" if message.side else ""
            origin = ""
            if replaying:
                origin = " [replayed]" if message.model == "replay" else " [model call]"
            parts.append(
                f"<p{_PRE}><b>assistant{side}</b>{origin}: {_e(preview(message.content))}"
                f"{_usage_html(message)}</p>" + _thinking_html(thought)
            )
    if thread.files:
        listed = "".join(f"<li><code>{_e(p)}</code> ({s} B)</li>" for p, s in thread.files)
        parts.append(
            f"<details><summary>files ({len(thread.files)})</summary><ul>{listed}</ul></details>"
        )
    for child_id in thread.children:
        parts.append(_thread_html(reading, child_id, depth + 1))
    label = f"{_e(thread.name or thread.agent)} <code>{_e(thread_id)}</code>"
    inner = "".join(parts)
    if depth == 0:
        return inner
    return (
        f'<details class="threadlab-subagent" open><summary>subagent {label}'
        f" [{_e(thread.status)}{_e(_cost(thread.cost_usd))}]</summary>"
        f'<div style="margin-left:14px">{inner}</div></details>'
    )


def static_html(thread: Thread, steps: list[StepRecord] | None = None) -> str:
    """`thread` and its subagents as script-free HTML, drawn from its steps (`thread.steps()`,
    or `steps` read already): what a saved notebook shows where no script runs."""
    return _html(static_reading(thread, steps))


def _html(reading: StaticReading) -> str:
    run = reading.run
    head = (
        f"<div><b>threadlab</b> thread <code>{_e(reading.root)}</code>"
        f" — run {_e(run['status'])}{_e(_spent(run, reading.replayed))}</div>"
    )
    error = f"<p style='color:#cf222e'>{_e(run['error'])}</p>" if run.get("error") else ""
    return (
        f'<div class="threadlab-static" style="{_STYLE}">{head}'
        f"{_thread_html(reading, reading.root)}{error}</div>"
    )


def _cost(cost_usd: float | None) -> str:
    cost = cost_text(cost_usd)
    return f" · {cost}" if cost else ""


def _spent(run: dict[str, Any], counts: tuple[int, int] | None = None) -> str:
    parts = [usage_text(run.get("usage")), cost_text(run.get("cost_usd", 0.0))]
    if counts is not None:
        calls = "model call" if counts[0] == 1 else "model calls"
        parts.append(f"{counts[0]} {calls} replayed · {counts[1]} forwarded to the model")
    return "".join(f" · {part}" for part in parts if part)


def _text_lines(reading: StaticReading, thread_id: str, indent: str) -> list[str]:
    """A thread's calls, each under its own thread (a child's are never the lead's), nested
    calls indented under the call that started them."""
    lines = []
    for card in reading.cards.values():
        if card["thread"] == thread_id:
            progress = f" — {card['progress']}" if card.get("progress") else ""
            pad = indent + "  " * card["depth"]
            asked = card.get("approval") or {}
            decision = f" — {decision_text(card)}" if asked.get("state") == "asked" else ""
            lines.append(_one_line(f"{pad}[{card['status']}] {card['name']}{progress}{decision}"))
    for child_id in reading.threads[thread_id].children:
        child = reading.threads[child_id]
        lines.append(_one_line(f"{indent}subagent {child.name} ({child.id}): {child.status}"))
        lines += _text_lines(reading, child.id, indent + "  ")
    return lines


def static_text(thread: Thread, steps: list[StepRecord] | None = None) -> str:
    """`thread` and its subagents as plain text, from its steps (as `static_html`)."""
    return _text(static_reading(thread, steps))


def _text(reading: StaticReading) -> str:
    run = reading.run
    lines = [f"threadlab thread {reading.root} — run {run['status']}{_spent(run)}"]
    lines += _text_lines(reading, reading.root, "  ")
    if run.get("text"):
        lines.append(_indented(f"  answer: {run['text']}"))
    if run.get("error"):
        lines.append(_indented(f"  error: {run['error']}"))
    return "\n".join(lines)


# What breaks a line where a reader (a terminal, an editor) sees one.
_LINE_BREAKS = re.compile(r"[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")


def _one_line(text: str) -> str:
    """A summary line as one line: a name or value the model chose cannot start a line of
    its own (and pass for another call's), nor move a terminal's cursor over the line
    (a backspace, an escape sequence, a right-to-left override): those are shown escaped."""
    return one_line(_LINE_BREAKS.sub(" ⏎ ", text))


def _indented(text: str) -> str:
    """A multi-line answer with its lines under its first: none reads as a line of the
    summary."""
    return _LINE_BREAKS.sub("\n    ", text)


class StaticView:
    """A thread whose run is over as HTML (`<details>`, no script) with a text/plain fallback,
    both drawn from its steps: with `shown`, what that view shows of it (a cell's own run)."""

    def __init__(self, thread: Thread, shown: ViewState | None = None) -> None:
        reading = static_reading(thread, shown=shown)  # read once for both
        self.html = _html(reading)
        self.text = _text(reading)

    def _repr_mimebundle_(self, **_: Any) -> dict[str, str]:
        return {"text/html": self.html, "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


def request_text(seen: SeenRequest) -> str:
    """What a model step was sent, to read: the system prompt, each message, the tools.

    Examples:
        >>> from threadlab import Message, SeenRequest
        >>> print(request_text(SeenRequest([Message(role="system", content="Be brief."),
        ...                                 Message(role="user", content="hi")])))
        system: Be brief.
        user: hi
        tools: none (tool_choice auto, parallel calls no)
    """
    lines = []
    for message in seen.messages:
        who = message.role + (f" ({message.tool_call_id})" if message.tool_call_id else "")
        lines.append(f"{who}: {message.content or ''}".rstrip())
        lines += [
            f"  calls {call.name} ({call.id}): {json.dumps(call.arguments, ensure_ascii=False)}"
            for call in message.tool_calls
        ]
    offered = ", ".join(t["name"] for t in seen.tools) or "none"
    parallel = "yes" if seen.parallel_tool_calls else "no"
    lines.append(f"tools: {offered} (tool_choice {seen.tool_choice}, parallel calls {parallel})")
    return "\n".join(lines)

"""A thread's history said in plain words: one paragraph per step, derived from its stored
messages and events (no model writes it), each sentence that rests on a rule of the spec
naming that rule.

The lesson is the runtime's rules: that arguments are checked before a tool runs, that calls
run one at a time in the model's order, that each result (and each error) is stored before
the run goes on, that a progress argument shows what a call does while its arguments stream,
that attachments are copied between threads. Text a model, tool or user wrote is quoted
escaped, so none of it renders as Markdown or HTML.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from .._data import (
    CustomEvent,
    Decision,
    FileWrittenEvent,
    Message,
    MessageCreatedEvent,
    RunFinishedEvent,
    StepRecord,
    SubagentCreatedEvent,
    ThreadEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from .._markdown import escape_markdown
from ..execution import call_step_ids

if TYPE_CHECKING:
    from ._thread import Thread

__all__ = ["RULES", "Paragraph", "Rule", "explain", "explain_paragraphs"]


@dataclass(frozen=True)
class Rule:
    """A rule of the spec's Tools page a narration rests on, and the guide that explains it."""

    words: str
    """The rule in the spec's words."""
    section: str
    """Where the spec says it."""
    guide: str
    """The guide (a file of docs/guides/) that explains how threadlab keeps it."""


RULES: dict[str, Rule] = {
    "validate": Rule(
        "validate tool args against the declared schema", "§8 Conformance", "reliability.md"
    ),
    "sequential": Rule(
        "execute local tools sequentially in the order they were returned",
        "§8 Conformance",
        "reliability.md",
    ),
    "persist": Rule(
        "persist tool results as messages before advancing", "§8 Conformance", "reliability.md"
    ),
    "errors": Rule(
        "persist tool errors as tool result messages rather than halting execution",
        "§8 Conformance",
        "reliability.md",
    ),
    "progress": Rule(
        "wait until just this argument has finished streaming and surface its value as progress",
        "§7 Progress Reporting",
        "tools.md",
    ),
    "attachments": Rule(
        "returned attachment references must always be valid for the receiving thread filesystem",
        "§6 Attachment Semantics Across Threads",
        "subagents-and-attachments.md",
    ),
    "subagents": Rule(
        "relationships are declared on the owning agent side",
        "§5 Subagent Composition",
        "subagents-and-attachments.md",
    ),
    "variables": Rule(
        "required: true means execution cannot continue until a value resolves",
        "§3 Variable Declarations",
        "variables-and-secrets.md",
    ),
}

# Why a call failed, read from the start of its stored error result (the runtime's own
# wordings; each has a test): the first pattern that matches explains it, and names the rules
# it rests on.
_ERROR_CAUSES: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (
        re.compile(r"invalid arguments for "),
        "The arguments did not match the tool's schema, so the tool did not run",
        ("validate",),
    ),
    (
        re.compile(r"unknown tool "),
        "The model named a tool it had not been offered, so nothing ran",
        ("validate",),
    ),
    (
        re.compile(r"the arguments "),
        "The arguments were not a JSON object the tool could take, so the tool did not run",
        ("validate",),
    ),
    (
        re.compile(r"tool .* cannot run: required variables"),
        "A variable the tool requires had no value in this thread, so the tool did not run",
        ("variables",),
    ),
    (
        re.compile(r"tool .* timed out"),
        "The call ran past its timeout and was abandoned; what it still tried to write was refused",
        (),
    ),
    (re.compile(r"rejected"), "A person rejected the call, so it did not run", ()),
    (
        re.compile(r"interrupted: "),
        "The run was stopped before the call finished; the runtime gave the call this result so"
        " that every call in the history has one",
        (),
    ),
)
_QUOTE_LENGTH = 120
# A run that ended waiting: why, said as a pause.
_PAUSES = {
    "waiting: approval": (
        "The run paused for a decision",
        "A call waits for a person's decision; a resume goes on from there, the results before"
        " it kept.",
    ),
    "waiting: model step": (
        "The run paused before a model step",
        "Step mode: the run stopped before its next model step, with the request it was about"
        " to send shown; a resume sends it.",
    ),
    "waiting: tool call": (
        "The run paused before a tool call",
        "Whoever followed the run step by step stopped before this call ran; the call and"
        " those after it in the model's step wait, unanswered, and a resume runs them in"
        " order.",
    ),
    "waiting: subagent": (
        "The run paused for a subagent",
        "A subagent waits for a decision; the call that runs it waits with it.",
    ),
}
# The lifecycle tools whose result is a child's report: the files they write in the caller's
# thread are the copies of the attachments the child handed back.
_REPORTING_TOOLS = ("subagent_create", "subagent_message")


class Explanation(str):
    """Markdown text that a notebook shows rendered (a `str` everywhere else)."""

    __slots__ = ()

    def _repr_markdown_(self) -> str:
        return str(self)


@dataclass(frozen=True)
class Paragraph:
    """One narrated step: its title and paragraph, and what of the history it tells of."""

    kind: str
    """"user", "model", "tool", "subagent", "file" or "run"."""
    title: str
    """A few words (Markdown): "A model step", "The call of `write_file`"."""
    text: str
    """The paragraph (Markdown)."""
    message_id: str | None = None
    """The message the step wrote (its user, assistant or tool message), if any."""
    subject: str | None = None
    """The id of the history point it tells of (as `thread.history_points()` names it): its
    message's id, the child's thread id, the file's path or the run's id."""
    tool_call_id: str | None = None
    """The call it tells of, for a tool step."""
    depth: int = 0
    """0 for the thread's own conversation; 1 and more inside a prompt exposed as a tool."""
    offered: tuple[str, ...] | None = None
    """For a model step on record: the names of the tools it was offered."""


def explain(thread: Thread, *, guides: str | None = None) -> str:
    """`thread`'s history in plain words: Markdown, one numbered paragraph per step (a nested
    turn of a prompt tool quoted under its call). A sentence that rests on a rule of the spec
    names it; with `guides` (a URL or a path ending in "/", such as "../docs/guides/") each
    rule also links to the guide that explains it (a `javascript:` or other scheme's URL
    raises `ValueError`). In a notebook the text shows rendered, and nothing a model, a tool
    or a user wrote in it takes effect as Markdown or HTML."""
    paragraphs = explain_paragraphs(thread, guides=guides)
    if not paragraphs:
        return Explanation(f"Thread `{thread.id}` has no stored history yet.\n")
    written = []
    for number, paragraph in enumerate(paragraphs, start=1):
        quote = "> " * paragraph.depth
        lines = f"**{number}. {paragraph.title}.** {paragraph.text}".splitlines()
        written.append("\n".join(quote + line for line in lines))
    return Explanation("\n\n".join(written) + "\n")


def explain_paragraphs(
    thread: Thread,
    *,
    guides: str | None = None,
    events: list[ThreadEvent] | None = None,
    steps: list[StepRecord] | None = None,
) -> list[Paragraph]:
    """The paragraphs `explain` writes, one `Paragraph` per step, in the order the steps
    happened; `events`: the thread's own (`thread.events`), and `steps`: its steps (those of
    `thread.steps()` or of an ancestor's, which hold its own), where read already."""
    target = None if guides is None else _link_target(guides)  # refused before any reading
    read = thread.steps() if steps is None else steps
    own = [step for step in read if step.thread_id == thread.id]
    return list(
        _Narrator(thread, target, own).paragraphs(thread.events if events is None else events)
    )


@dataclass
class _Call:
    """A call being told: its step (what `thread.steps()` read of it: its name, progress,
    decision, times and result), and what it did while it ran, gathered until its result."""

    step: StepRecord | None
    name: str
    asked: bool = False  # it waited for a decision
    progress_early: bool = False  # its progress showed while its arguments streamed
    files: list[FileWrittenEvent] = field(default_factory=list)
    custom: Counter[str] = field(default_factory=Counter)
    traceback: str | None = None
    finished: bool = False  # the tool ran to an end (not refused before it ran)


class _Narrator:
    def __init__(self, thread: Thread, guides: str | None, steps: list[StepRecord]) -> None:
        self._thread = thread
        self._guides = guides  # a link's target, checked
        self._messages = {m.id: m for m in thread.all_messages()}
        self._steps = {step.id: step for step in steps}
        # The calls that were held back for a decision: each such pause's parent.
        self._asked = {
            step.parent_id
            for step in steps
            if step.kind == "pause" and step.parent_id in self._steps
            and self._steps[step.parent_id].kind == "tool_call"
        }  # fmt: skip
        # Started while the model still streamed, before its message was stored.
        self._streaming: set[str] = set()
        # Per depth, the calls of the last model step that have no result yet, in order, by
        # id (a model may repeat an id from an earlier step: the newest step's call is the
        # one; or within a step: each answer goes to the first of that id left).
        self._open: dict[int, list[tuple[str, _Call]]] = {}
        # The tools each model step on record was offered, by its message id.
        self._offered: dict[str, tuple[str, ...]] = {}
        # How many user messages each depth has stored so far (a turn's own, and before).
        self._users: dict[int, int] = {}
        # The last step whose messages were counted: its id, how many, how many of each role.
        self._counted: tuple[str, int, Counter[str]] | None = None

    def paragraphs(self, events: list[ThreadEvent]) -> Iterator[Paragraph]:
        for event in events:
            yield from self._step(event)

    def _step(self, event: ThreadEvent) -> Iterator[Paragraph]:
        if isinstance(event, ToolCallStartedEvent):
            if self._find(event.tool_call_id) is None:
                self._streaming.add(event.tool_call_id)
        elif isinstance(event, MessageCreatedEvent):
            message = self._messages.get(event.message_id)
            if message is not None:
                yield from self._message(message)
        elif isinstance(event, FileWrittenEvent):
            running = self._running()
            if running is not None:
                running.files.append(event)
            else:
                yield Paragraph("file", *self._file(event), subject=event.path, depth=event.depth)
        elif isinstance(event, CustomEvent) and event.tool_call_id:
            if call := self._find(event.tool_call_id):
                call.custom[event.event_type] += 1
        elif isinstance(event, ToolCallFinishedEvent):
            if call := self._find(event.tool_call_id):
                call.finished, call.traceback = True, event.traceback
        elif isinstance(event, SubagentCreatedEvent):
            yield Paragraph(
                "subagent",
                *self._subagent(event),
                subject=event.child_thread_id,
                depth=event.depth,
            )
        elif isinstance(event, RunFinishedEvent) and event.depth == 0:
            yield Paragraph("run", *self._run_finished(event), subject=event.run_id)

    def _find(self, tool_call_id: str) -> _Call | None:
        """The open call with this id, the deepest first (a nested turn runs inside a call)."""
        for depth in sorted(self._open, reverse=True):
            for call_id, call in self._open[depth]:
                if call_id == tool_call_id:
                    return call
        return None

    def _answered(self, depth: int, tool_call_id: str) -> _Call | None:
        """The first open call of `depth` with this id, no longer open."""
        calls = self._open.get(depth, [])
        for at, (call_id, call) in enumerate(calls):
            if call_id == tool_call_id:
                del calls[at]
                return call
        return None

    def _running(self) -> _Call | None:
        """The call running now: calls run in order, so the first open one, the deepest."""
        for depth in sorted(self._open, reverse=True):
            if self._open[depth]:
                return self._open[depth][0][1]
        return None

    def _message(self, message: Message) -> Iterator[Paragraph]:
        depth = message.depth
        if message.role == "user":
            yield Paragraph("user", *self._user(message), message.id, message.id, depth=depth)
        elif message.role == "assistant":
            calls: list[tuple[str, _Call]] = []
            step_ids = call_step_ids(message.id, [c.id for c in message.tool_calls])
            for tool_call, step_id in zip(message.tool_calls, step_ids, strict=True):
                call = _Call(
                    self._steps.get(step_id),
                    tool_call.name,
                    asked=step_id in self._asked,
                    progress_early=tool_call.id in self._streaming,
                )
                calls.append((tool_call.id, call))
                self._streaming.discard(tool_call.id)
            self._open[depth] = calls
            title, text = self._model(message, calls)
            offered = self._offered.pop(message.id, None)
            yield Paragraph(
                "model", title, text, message.id, message.id, depth=depth, offered=offered
            )
        elif message.role == "tool" and message.tool_call_id:
            answered = self._answered(depth, message.tool_call_id)
            yield Paragraph(
                "tool",
                *self._tool(message, answered or _Call(None, message.name or "")),
                message.id,
                message.id,
                tool_call_id=message.tool_call_id,
                depth=depth,
            )

    # the paragraphs: each a title and its text

    def _user(self, message: Message) -> tuple[str, str]:
        title = "The caller's message" if message.depth else "The user's message"
        text = f"{_quoted(message.content)} was stored in the thread"
        if message.attachments:
            text += f", with the files {_paths(message.attachments)}"
        self._users[message.depth] = self._users.get(message.depth, 0) + 1
        return (
            title,
            text + " before the model saw it: what a model step is sent is read from the"
            " stored history, not from what a cell showed.",
        )

    def _roles(self, message: Message, sent: list[Message]) -> Counter[str]:
        """How many messages of each role the step of `message` was sent. A step's request is
        the one before it, cut to its first `keep`, then what it adds: where it keeps the
        whole of the last step counted, that count is added to, not counted again (a long
        thread's steps would count its square)."""
        record = message.request
        last = self._counted
        if record is not None and last is not None and (record.after, record.keep) == last[:2]:
            roles = last[2] + Counter(map(_ROLE, sent[record.keep :]))
            self._counted = (message.id, len(sent), roles)
            return roles
        roles = Counter(map(_ROLE, sent))
        self._counted = (message.id, len(sent), roles)
        return roles

    def _model(self, message: Message, calls: list[tuple[str, _Call]]) -> tuple[str, str]:
        title = f"A model step ({_inline(message.model)})" if message.model else "A model step"
        sentences = []
        request = self._thread.model_request(message.id)
        if request is not None:
            tools = [str(spec.get("name", "")) for spec in request.tools]
            self._offered[message.id] = tuple(tools)
            offered = (
                f" and the schemas of {_count(len(tools), 'tool')} ({_names(tools)})"
                if tools
                else " and no tools"
            )
            roles = self._roles(message, request.messages)
            sent = _messages_sent(len(request.messages), roles)
            sentences.append(f"The runtime sent the model {sent}{offered}.")
            # (A dual_ai side is sent its own view of the session: not compared.)
            if not message.depth and message.side is None and roles["user"] < self._users.get(0, 0):
                sentences.append(
                    "The earlier turns were not sent: the prompt does not include the chat"
                    " (`include_chat` is off), so each turn starts from its own message."
                )
        asked = [call.name for _, call in calls]
        answer = (message.content or "").strip()
        if answer and asked:
            sentences.append(
                f"The model wrote {_quoted(answer)} and asked to call {_calls(asked)}."
            )
        elif asked:
            sentences.append(f"The model asked to call {_calls(asked)}.")
        elif answer:
            sentences.append(
                f"The model answered {_quoted(answer)} and asked for no tool, so this turn"
                " ends with that answer."
            )
        else:
            sentences.append("The model answered with no text and asked for no tool.")
        for _, call in calls:
            progress = call.step.progress if call.step is not None else None
            if progress and call.progress_early:
                sentences.append(
                    f"While the model was still writing the arguments, the card of"
                    f" `{_code(call.name)}` already said {_quoted(progress)}: the value of"
                    " its progress argument, shown as soon as that one argument had streamed"
                    f"{self._rule('progress')}."
                )
        usage = message.usage or {}
        if usage:
            sentences.append(
                f"The step used {usage.get('input_tokens', 0)} tokens in and"
                f" {usage.get('output_tokens', 0)} out."
            )
        sentences.append("The answer was stored as an assistant message.")
        if len(asked) > 1:
            sentences.append(
                "The calls run one at a time, in the order the model gave them"
                f"{self._rule('sequential')}."
            )
        return title, " ".join(sentences)

    def _tool(self, message: Message, call: _Call) -> tuple[str, str]:
        step = call.step
        title = f"The call of `{_code(call.name or message.name or '')}`"
        if step is not None and step.progress:
            title += f" ({_quoted(step.progress)})"
        sentences = []
        decision = step.decision if step is not None else None
        if call.asked or decision is not None:
            sentences.append(self._decision(decision))
        failed = message.tool_status == "error"
        if failed:
            sentences.append(self._error(message, call.traceback))
        else:
            took = step.duration_s if step is not None and call.finished else None
            ran = f" and the call ran for {_duration(took * 1000)}" if took is not None else ""
            sentences.append(
                f"Its arguments were checked against the tool's schema{self._rule('validate')}"
                f"{ran}."
            )
        if call.files and call.name not in _REPORTING_TOOLS:
            sentences.append(f"It wrote {_files(call.files)} in the thread's files.")
        if call.custom:
            emitted = ", ".join(
                f"{_count(n, 'event')} `{_code(kind)}`" for kind, n in call.custom.items()
            )
            sentences.append(f"It emitted {emitted} while it ran.")
        if call.name in _REPORTING_TOOLS and call.files:
            sentences.append(
                f"The subagent's report hands over {_paths(tuple(f.path for f in call.files))},"
                " copied from the child's files into this thread's own, so the references in"
                f" the result are valid here{self._rule('attachments')}."
            )
        elif message.attachments:
            sentences.append(
                f"Its result names the files {_paths(message.attachments)} of this thread; a"
                " caller in another thread receives copies of them in its own files"
                f"{self._rule('attachments')}."
            )
        if failed:
            sentences.append(
                "The error was stored as the call's result message, for the model to read,"
                f" and the run went on{self._rule('errors')}."
            )
        else:
            sentences.append(
                f"Its result, {_quoted(message.content)}, was stored as a tool message before"
                f" anything else happened{self._rule('persist')}."
            )
        return title, " ".join(sentences)

    def _decision(self, decided: Decision | None) -> str:
        asked = "The call waited for a person's decision before it could run"
        if decided is None:
            return asked + ", and none was given."
        who = {"approver": "the run's approver", "view": "a person in the notebook view"}.get(
            decided.by, "a decision through the API"
        )
        if not decided.approved:
            reason = f" ({_quoted(decided.reason)})" if decided.reason else ""
            return f"{asked}: {who} rejected it{reason}."
        if decided.edited:
            return f"{asked}: {who} approved it with edited arguments, which are what ran."
        return f"{asked}: {who} approved it."

    def _error(self, message: Message, traceback: str | None) -> str:
        content = message.content or ""
        if traceback:
            return (
                f"The tool raised {_quoted(content.splitlines()[0] if content else '')}; the model"
                " reads that one line, and the traceback is kept in the call's event for the"
                " person reading the thread."
            )
        for pattern, cause, rules in _ERROR_CAUSES:
            if pattern.match(content):
                rested = "".join(self._rule(rule) for rule in rules)
                return f"{cause}{rested}: {_quoted(content)}."
        return f"The tool returned an error: {_quoted(content)}."

    def _subagent(self, event: SubagentCreatedEvent) -> tuple[str, str]:
        # The call that created it, as the steps read it.
        created = self._steps.get(f"subagent:{event.child_thread_id}:created")
        creator = self._steps.get(created.parent_id or "") if created is not None else None
        during = f"While `{_code(creator.name or '')}` ran, the" if creator else "The"
        return "A subagent", (
            f"{during} runtime created `{_code(event.name)}`, a thread of its own"
            f" (`{_code(event.child_thread_id)}`) with its own history, variables and files;"
            " the files it is given or hands back are copies, so each thread's paths stay its"
            f" own{self._rule('subagents')}."
        )

    def _file(self, event: FileWrittenEvent) -> tuple[str, str]:
        if event.deleted:
            return "A file deleted", f"`{_code(event.path)}` was deleted from the thread's files."
        return "A file written", f"{_files([event])} was written in the thread's files."

    def _run_finished(self, event: RunFinishedEvent) -> tuple[str, str]:
        paused = _PAUSES.get(event.stop_reason or "")
        if paused is not None:
            return paused
        title = f"The run ended: {_inline(event.status)}"
        if event.stop_reason and event.stop_reason != event.status:
            title += f" ({_inline(event.stop_reason)})"
        if event.status == "completed":
            said = "The model answered without asking for a tool, so the turn is over."
        else:
            said = "Every call in the history has its result, so it can go on."
        if event.error:
            said = f"{_quoted(event.error)} {said}"
        return title, said

    def _rule(self, key: str) -> str:
        rule = RULES[key]
        named = f"{rule.section}: “{rule.words}”"
        if self._guides is None:
            return f" (the spec, {named})"
        return f" ([the spec, {named}]({self._guides}{rule.guide}))"


def _quoted(text: str | None) -> str:
    """Text someone wrote, quoted on one line, shortened, and inert as Markdown."""
    flat = " ".join((text or "").split())
    if len(flat) > _QUOTE_LENGTH:
        flat = flat[: _QUOTE_LENGTH - 1] + "…"
    return f"“{escape_markdown(flat)}”"


def _inline(text: str) -> str:
    """Text someone chose, on one line and inert as Markdown (a title's words)."""
    return escape_markdown(" ".join(text.split()))


def _code(text: str) -> str:
    """A name inside `code`: backticks are its only markup, and it stays on one line (a blank
    line, or a line that opens an HTML block, would end the span and the paragraph, and
    what follows would render as Markdown and HTML)."""
    return " ".join(text.replace("`", "'").split())


def _link_target(guides: str) -> str:
    """`guides` as a link's target that no character in it can end early (parentheses,
    spaces, angle brackets and line breaks percent-encoded); a scheme other than http,
    https or file (a `javascript:` URL) is refused."""
    scheme = urlsplit(guides).scheme.lower()
    if scheme not in ("", "http", "https", "file") and len(scheme) > 1:  # C:\ is a path
        raise ValueError(f"guides must be an http(s) or file URL or a path, not a {scheme}: URL")
    return quote(guides, safe="/:?#[]@!$&'*+,;=%~.-_")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _names(names: list[str]) -> str:
    return ", ".join(f"`{_code(name)}`" for name in names)


def _calls(names: list[str]) -> str:
    names = [f"`{_code(name)}`" for name in names]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f" and {names[-1]}, in that order"


_ROLE = attrgetter("role")


def _messages_sent(count: int, roles: Counter[str]) -> str:
    parts = []
    for role, label in (
        ("system", "the system prompt"),
        ("user", "user message"),
        ("assistant", "assistant message"),
        ("tool", "tool result"),
    ):
        n = roles[role]
        if n and role == "system":
            parts.append(label)
        elif n:
            parts.append(_count(n, label))
    listed = ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else "".join(parts)
    return f"{_count(count, 'message')} ({listed})" if listed else "no messages"


def _files(events: list[FileWrittenEvent]) -> str:
    return ", ".join(f"`{_code(e.path)}` ({_count(e.size, 'byte')})" for e in events)


def _paths(paths: tuple[str, ...]) -> str:
    return ", ".join(f"`{_code(p)}`" for p in paths)


def _duration(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"

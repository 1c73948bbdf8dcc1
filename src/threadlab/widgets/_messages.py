"""The messages a view's front end and the kernel exchange on the widget's comm, typed.

The views' modules declare the same messages (`ViewMessage` and `KernelMessage` in
`js/types.js`), and a test holds both sides to one list of ops and fields. What arrives
from the front end is checked here before anything acts on it: anyone who can write to the
comm is the sender, so a message of an unknown op or of the wrong shape is dropped.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

__all__ = [
    "AppCall",
    "AppResultMessage",
    "ArgumentsMessage",
    "Decide",
    "DecideErrorMessage",
    "Elicit",
    "FetchArguments",
    "FetchRequest",
    "FetchResult",
    "Fork",
    "ForkErrorMessage",
    "KernelMessage",
    "Open",
    "Patch",
    "PatchMessage",
    "Play",
    "Preview",
    "PreviewMessage",
    "Ready",
    "RequestMessage",
    "ResultMessage",
    "SecretMessage",
    "Select",
    "StepChoice",
    "ViewMessage",
    "read_view_message",
]

log = logging.getLogger("threadlab.widgets")


class _FromView(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class FetchResult(_FromView):
    """A card opened: send its call's whole result (never part of the synced state)."""

    op: Literal["fetch_result"]
    thread: str
    call: str


class FetchArguments(_FromView):
    """A card's "show all arguments": send its call's whole arguments (long strings are
    folded in the synced state)."""

    op: Literal["fetch_arguments"]
    thread: str
    call: str


class FetchRequest(_FromView):
    """A step's "what the model was sent" opened: send it."""

    op: Literal["fetch_request"]
    thread: str
    message: str


class Preview(_FromView):
    """A file clicked in the file browser: send its preview (with `digest`, of the content
    it held then: a file as of a point of the player)."""

    op: Literal["preview"]
    thread: str
    path: str
    digest: str | None = None


class Select(_FromView):
    """A thread chosen in the tree (or a branch, which the view then shows)."""

    op: Literal["select"]
    thread: str


class Ready(_FromView):
    """The view is on screen (it can take decisions; a live one gets the whole view state)."""

    op: Literal["ready"]


class Fork(_FromView):
    """ "Fork from here": `at` a message or call, with at most one change."""

    op: Literal["fork"]
    thread: str
    at: str
    result: Any = None
    arguments: dict[str, Any] | None = None
    message: str | None = None

    def options(self) -> dict[str, Any]:
        """The change asked for, as `Thread.fork` takes it (what the view sent, only)."""
        chosen = ("result", "arguments", "message")
        return {k: getattr(self, k) for k in chosen if k in self.model_fields_set}


class Decide(_FromView):
    """Approve (with edited `arguments`) or Reject (with a `reason`) in a call's card."""

    op: Literal["decide"]
    thread: str
    call: str
    approved: bool
    arguments: dict[str, Any] | None = None
    reason: str | None = None


class Elicit(_FromView):
    """A server's form answered in a call's card: Submit (`accept`, with the values) or
    Decline."""

    op: Literal["elicit"]
    thread: str
    call: str
    action: Literal["accept", "decline"]
    content: dict[str, Any] = Field(default_factory=dict)


class StepChoice(_FromView):
    """A run paused before a model step (step mode): Continue sends that step, Stop leaves the
    thread as it is."""

    op: Literal["step"]
    thread: str
    action: Literal["continue", "stop"]


class Play(_FromView):
    """ "Step through" on a thread view: send its history's points (and keep them current
    while it runs), or stop (`playing` false: the view shows the thread as it is)."""

    op: Literal["play"]
    thread: str
    playing: bool


class Open(_FromView):
    """A thread chosen in a list (threads, an evaluation's cells): show it below."""

    op: Literal["open"]
    thread: str


class AppCall(_FromView):
    """A tool's app (an MCP App in a call's card) calls a tool: run it for the app, recorded
    with the call, and answer the app's `request`."""

    op: Literal["app_call"]
    thread: str
    call: str
    request: str | int
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


ViewMessage = Annotated[
    FetchResult
    | FetchArguments
    | FetchRequest
    | Preview
    | Select
    | Ready
    | Fork
    | Decide
    | Elicit
    | StepChoice
    | Play
    | Open
    | AppCall,
    Field(discriminator="op"),
]
_VIEW_MESSAGE: TypeAdapter[ViewMessage] = TypeAdapter(ViewMessage)


def read_view_message(content: object) -> ViewMessage | None:
    """The message the front end sent, checked; None (and a debug log line) when it is not
    one of the messages above."""
    try:
        return _VIEW_MESSAGE.validate_python(content)
    except ValidationError as exc:
        log.debug("a view sent a message that is not one of threadlab's: %s", exc)
        return None


# From the kernel to the view.


class ResultMessage(TypedDict):
    op: Literal["result"]
    call: str
    text: str


class ArgumentsMessage(TypedDict):
    op: Literal["arguments"]
    call: str
    text: str


class RequestMessage(TypedDict):
    op: Literal["request"]
    message: str
    text: str


class PreviewMessage(TypedDict):
    op: Literal["preview"]
    thread: str
    path: str
    digest: NotRequired[str]
    error: NotRequired[str]
    image: NotRequired[str]
    text: NotRequired[str]
    size: NotRequired[int]
    truncated: NotRequired[bool]


class ForkErrorMessage(TypedDict):
    op: Literal["fork_error"]
    thread: str
    at: str
    error: str


class DecideErrorMessage(TypedDict):
    op: Literal["decide_error"]
    thread: str
    call: str
    error: str


class SecretMessage(TypedDict):
    """What a view shows only while its kernel is there, never in its state or its output
    (an MCP endpoint's bearer token and the client configuration that holds it)."""

    op: Literal["secret"]
    token: str
    config: str


class AppResultMessage(TypedDict):
    """The answer to an app's tool call: the server's `CallToolResult`, or why it was not
    run."""

    op: Literal["app_result"]
    call: str
    request: str | int
    result: NotRequired[dict[str, Any]]
    error: NotRequired[str]


class Patch(TypedDict, total=False):
    """What changed in the view state since the last patch (`Patcher`): each part present only
    when something in it changed."""

    threads: list[dict[str, Any]]
    cards: dict[str, dict[str, Any]]
    files: dict[str, list[dict[str, Any]]]
    messages: dict[str, list[dict[str, Any]]]
    drafts: dict[str, Any]
    run: dict[str, Any]
    apps: dict[str, str]


class PatchMessage(Patch):
    op: Required[Literal["patch"]]


KernelMessage = (
    ResultMessage
    | ArgumentsMessage
    | RequestMessage
    | PreviewMessage
    | ForkErrorMessage
    | DecideErrorMessage
    | SecretMessage
    | AppResultMessage
    | PatchMessage
)

"""The anywidget views: one inspector (conversation with tool cards, subagent tree, file
browser) and the thread list. ESM and CSS live in `static/`, next to this file."""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import anywidget
import traitlets
from IPython import display as ipython_display
from IPython.display import DisplayHandle

from .. import (
    Approval,
    ApprovalDecidedEvent,
    CustomEvent,
    DefinitionError,
    HandoffEvent,
    Run,
    Runtime,
    Thread,
    ThreadlabError,
    ThreadOverview,
)
from ..mcp import APP_CALL_EVENT, call_for_app
from ._card_approver import CardApprover
from ._card_elicitor import CardElicitor
from ._history import history_of
from ._json_text import as_json_text
from ._messages import (
    AppCall,
    AppResultMessage,
    Decide,
    Elicit,
    FetchArguments,
    FetchRequest,
    FetchResult,
    Fork,
    KernelMessage,
    Open,
    Play,
    Preview,
    Ready,
    Select,
    StepChoice,
    ViewMessage,
    read_view_message,
)
from ._patches import Patcher, apply_patch
from ._preview import preview_of
from ._replay import relate, replay
from ._run_stream import RunStream
from ._static import StaticView, request_text
from ._view_state import ViewState, call_of

__all__ = ["APP_CALLS_PER_MINUTE", "STATIC", "OpeningView", "ThreadListView", "ThreadView"]

log = logging.getLogger(__name__)

APP_CALLS_PER_MINUTE = 30
"""The most tool calls a call's app may have run in a minute (the page limits itself too)."""

# IPython's display functions carry no type hints.
_display: Callable[..., DisplayHandle | None] = ipython_display.display
_update: Callable[..., None] = ipython_display.update_display
STATIC = Path(__file__).parent / "static"
"""The views' scripts (one per view class, bundled from `js/`) and their styles."""
VIEW_MIME = "application/vnd.threadlab.view+json"
"""threadlab's own output type: the view's state, drawn by the threadlab JupyterLab
extension, live through the widget while its kernel holds it."""
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _sent_as_text(value: Any, widget: Any) -> str:
    """ipywidgets' `to_json` for a value sent as `as_json_text`: the view state's text when it was
    written already, as the view state was copied (a long one takes a tenth of a second)."""
    written = getattr(widget, "_view_state_text", None)
    if written is not None and written[0] is value:
        return cast(str, written[1])
    return as_json_text(value)


class _View(anywidget.AnyWidget):
    # One script draws every view class (it dispatches on `view`), bundled from `widgets/js/`
    # by `tools/build_views.py`; the styles are shared.
    _esm = STATIC / "views.js"
    _css = STATIC / "threadlab.css"
    view = traitlets.Unicode("inspector").tag(sync=True)
    handle: DisplayHandle | None = None
    """The view's output, once displayed."""
    key = traitlets.Unicode("").tag(sync=True)
    """Names the view for the front end, which keeps what a person opened in it across the
    redraw that comes when its output is updated."""

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # What the notebook file keeps must read without this kernel: threadlab's own type
        # (the view's state, drawn by the threadlab extension, which goes live through the
        # widget while the kernel holds it), static HTML (nbconvert, VS Code, GitHub) and
        # text. The widget's own type only while a run streams, for front ends without the
        # extension; the run's end replaces it.
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if isinstance(data, dict):
            if not self.streaming():
                data.pop(WIDGET_MIME, None)
            data[VIEW_MIME] = {"model_id": self.model_id, "state": self.saved_state()}
            data["text/plain"], data["text/html"] = self.static_texts()
        return bundle

    def _ipython_display_(self) -> None:
        # Shown under a display id of its own, so what the notebook keeps can be brought up
        # to date when the view changes after its cell (a run's end, a run started in it).
        data, metadata = self._bundle()
        self.handle = _display(data, metadata=metadata, raw=True, display_id=True)

    def _bundle(self) -> tuple[dict[str, Any], dict[str, Any]]:
        bundle = self._repr_mimebundle_()
        if isinstance(bundle, tuple):
            return bundle[0], bundle[1] or {}
        return bundle, {}

    def refresh_output(self, replacement: Any = None) -> None:
        """Bring the view's output up to date (or replace it by `replacement`)."""
        if self.handle is None:
            return
        if replacement is not None:
            _update(replacement, display_id=self.handle.display_id)
            return
        data, metadata = self._bundle()
        _update(data, metadata=metadata, raw=True, display_id=self.handle.display_id)

    def streaming(self) -> bool:
        """Whether a run streams into this view now."""
        return False

    def saved_state(self) -> dict[str, Any]:
        """What the notebook file keeps of the view: enough to draw it without a kernel."""
        return {"view": self.view, "key": self.key}

    def static_html(self) -> str:
        """The view's content as script-free HTML."""
        return f"<pre>{html.escape(repr(self))}</pre>"

    def static_texts(self) -> tuple[str, str]:
        """The view as plain text and as script-free HTML: what the notebook keeps beside
        it for front ends that draw neither threadlab's type nor the widget."""
        return repr(self), self.static_html()

    def __init__(self, rt: Runtime, **kwargs: Any) -> None:
        super().__init__(key=uuid.uuid4().hex, **kwargs)
        self.handle = None
        self._rt = rt
        self.after_message: Callable[[], None] | None = None
        """Called after each message from the front end is handled (a kernel hook)."""
        self.on_msg(self._on_message)

    def _on_message(self, _: Any, content: Any, buffers: Any) -> None:
        try:
            self._answer(content)
        finally:
            if self.after_message is not None:
                self.after_message()

    def _answer(self, content: object) -> None:
        message = read_view_message(content)
        if message is None:
            return
        # The front end is anyone who can send on the comm: it reads only what it shows.
        hidden = "that thread is not in this view"
        if isinstance(message, FetchResult):
            text = hidden if not self.shows(message.thread) else None
            self._send_result(message.thread, message.call, text)
        elif isinstance(message, FetchArguments):
            text = hidden if not self.shows(message.thread) else None
            self._send_arguments(message.thread, message.call, text)
        elif isinstance(message, FetchRequest):
            text = hidden if not self.shows(message.thread) else None
            self._send_request(message.thread, message.message, text)
        elif isinstance(message, Preview):
            if not self.shows(message.thread):
                self.tell({"op": "preview", "thread": message.thread, "path": message.path,
                           "error": hidden})  # fmt: skip
            else:
                self._send_preview(message.thread, message.path, message.digest)
        else:
            self._handle(message)

    def tell(self, message: KernelMessage) -> None:
        """Send the front end one of the kernel's messages."""
        self.send(message)

    def shows(self, thread_id: str) -> bool:
        """Whether `thread_id` is a thread this view displays."""
        return False

    def shown_state(self) -> ViewState | None:
        """The view state of the thread this view displays (None: none)."""
        return None

    def _handle(self, message: ViewMessage) -> None:
        return None

    def _send_result(self, thread_id: str, call_id: str, refusal: str | None) -> None:
        if refusal is not None:
            self.tell({"op": "result", "call": call_id, "text": refusal})
            return
        # Big payloads are never part of the synced state: the view asks for them.
        own = call_of(thread_id, call_id)  # the card's key: the call's id in its thread
        message = next(
            (
                m
                for m in self._rt.thread(thread_id).all_messages()
                if m.role == "tool" and m.tool_call_id == own
            ),
            None,
        )
        text = message.content if message is not None else None
        self.tell({"op": "result", "call": call_id, "text": text or ""})

    def _send_arguments(self, thread_id: str, call_id: str, refusal: str | None) -> None:
        if refusal is not None:
            self.tell({"op": "arguments", "call": call_id, "text": refusal})
            return
        # As stored (redacted), the model's own text when they were not JSON; where a
        # decision edited them, those it ran with (what the card shows).
        arguments: Any = None
        shown = self.shown_state()
        approval = ((shown.cards.get(call_id) if shown else None) or {}).get("approval") or {}
        if approval.get("edited") and approval.get("arguments") is not None:
            arguments = json.loads(approval["arguments"])
        for message in self._rt.thread(thread_id).all_messages():
            for call in message.tool_calls:
                if call.id == call_of(thread_id, call_id) and arguments is None:
                    arguments = call.arguments
        if arguments is None:
            text = "no such call in this thread"
        elif isinstance(arguments, str):
            text = arguments
        else:
            text = as_json_text(arguments, indent=2)
        self.tell({"op": "arguments", "call": call_id, "text": text})

    def _send_request(self, thread_id: str, message_id: str, refusal: str | None) -> None:
        if refusal is not None:
            self.tell({"op": "request", "message": message_id, "text": refusal})
            return
        # What a step was sent can be the whole history: asked for when a person opens it.
        seen = self._rt.thread(thread_id).model_request(message_id)
        text = request_text(seen) if seen is not None else "no request is on record for it"
        self.tell({"op": "request", "message": message_id, "text": text})

    def _send_preview(self, thread_id: str, path: str, digest: str | None = None) -> None:
        try:
            thread = self._rt.thread(thread_id)
        except LookupError as exc:
            self.tell({"op": "preview", "thread": thread_id, "path": path, "error": str(exc)})
            return
        self.tell(preview_of(thread, path, digest))


class ThreadView(_View):
    """A thread and its descendants: conversation with a card per tool call, the subagent
    tree, and each thread's files. Live while a run streams; a replay when reopened."""

    # The view state as synced. Its name stays "trace": saved notebooks hold it under that name
    # (their outputs are drawn from it with no kernel), in this release and earlier ones.
    trace = traitlets.Dict().tag(sync=True, to_json=_sent_as_text)
    selected = traitlets.Unicode("").tag(sync=True)
    live = traitlets.Bool(False).tag(sync=True)
    points: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True, to_json=_sent_as_text)
    """The history's points while it is stepped through ("step through", the player)."""
    narrating = traitlets.Bool(False).tag(sync=True)
    """Whether the points' narration (and a model step's choices) is still on its way."""
    told: traitlets.Dict[str, dict[str, Any]] = traitlets.Dict().tag(
        sync=True, to_json=_sent_as_text
    )
    """What the narration adds to the points sent, by their place: the points themselves
    are not sent again for it."""

    _view_state_text: tuple[dict[str, Any], str] | None = None
    """The view state being sent and its JSON text, written as it was copied."""
    rate = 15.0
    """The most updates a second a run this view starts itself (a fork) sends."""
    follow_every = 1.0
    """While a history is stepped through as it is written, how often (seconds) its points
    are sent again: those of a run here, or read from the store for one going on elsewhere."""

    def __init__(
        self,
        rt: Runtime,
        state: ViewState,
        *,
        patches: bool = True,
        view: str = "inspector",
        **kwargs: Any,
    ) -> None:
        # The first state goes out with the widget itself, not as an extra update.
        snapshot, text = state.snapshot_and_text()
        with self._view_state_written(snapshot, text):
            super().__init__(rt, view=view, trace=snapshot, selected=state.root_id, **kwargs)
        self.state = state
        self.finishing = False
        self.patches = patches
        self.rendered = False  # a front end has drawn it (and can take decisions)
        self._patcher = Patcher()
        self._reset_patches(snapshot)
        self._forking: asyncio.Future[None] | None = None
        self._deciding: asyncio.Future[None] | None = None
        self._app_calls: set[asyncio.Future[None]] = set()  # kept until done: not collected
        self._app_call_times: dict[str, list[float]] = {}  # by call: its app's recent calls
        self._stepping: asyncio.Future[None] | None = None
        self._unwatch: Callable[[], None] | None = None
        self.step: bool | str = False
        """The step mode its runs use (`send(step=...)`): Continue goes on in the same."""
        self.playing = False
        """Whether someone steps through the history (its points are kept current)."""
        self._points_sent = 0.0
        self._points_cost = 0.0
        self._following: asyncio.Future[None] | None = None
        if isinstance(rt.approver, CardApprover):
            rt.approver.watch(self)
        if isinstance(rt.elicitor, CardElicitor):
            rt.elicitor.watch(self)

    def push(self) -> None:
        """Send what changed since the last push (see `_push_view_state`) and, while someone
        steps through the history, its points (at most every `follow_every` seconds, and at
        the end): the player follows the run."""
        self._push_view_state()
        # Building the points of a long history takes a while: the run here is not slowed
        # by more than a fifth for it.
        every = max(self.follow_every, 4 * self._points_cost)
        due = time.monotonic() - self._points_sent >= every
        if self.playing and (self.finishing or due):
            self._send_points()

    def play(self, playing: bool) -> None:
        """ "Step through" in the view: send the history's points, kept current while the
        thread runs (a run here, or one in another process: its store is then read again
        every `follow_every` seconds); or stop sending them (the view shows the thread)."""
        self.playing = playing
        if not playing:
            self.points = []
            return
        self._send_points()
        self._follow_elsewhere()

    def _send_points(self) -> None:
        started = time.monotonic()
        self._show_points(history_of(self._rt.thread(self.state.root_id), self._rt.store))
        self._points_sent = time.monotonic()
        self._points_cost = self._points_sent - started

    def _show_points(self, points: list[dict[str, Any]]) -> None:
        """Send `points`, told already: nothing of an earlier narration is left to add."""
        with self.hold_sync():
            self.points = points
            self.told, self.narrating = {}, False

    def _playing_from(self, points: list[dict[str, Any]], cost: float) -> None:
        """Stepped through from the start, with `points` (built in `cost` seconds) already
        sent with the widget itself."""
        self.playing = True
        self._points_sent = time.monotonic()
        self._points_cost = cost
        self._follow_elsewhere()

    def _follow_elsewhere(self) -> None:
        """Follow a history another process is writing, once a front end shows the view."""
        if (
            self.playing
            and self.rendered
            and not self.live
            and self._following is None
            and self._rt.thread(self.state.root_id).status == "running"
        ):
            self._following = asyncio.ensure_future(self._follow())

    async def _follow(self) -> None:
        try:
            while self.playing and not self.live and self.comm is not None:
                await asyncio.sleep(self.follow_every)
                if not self.playing or self.live:
                    break
                thread = self._rt.thread(self.state.root_id)
                running = thread.status == "running"  # read first: nothing is missed after
                # The narration is built again only when something new was stored.
                if len(thread.history_points()) != len(self.points):
                    self.show(relate(replay(thread), thread))
                    self._show_points(history_of(thread, self._rt.store))
                if not running:
                    self.refresh_output()
                    break
        finally:
            self._following = None

    def _push_view_state(self) -> None:
        """Send what changed since the last push, as a patch the front end merges into its
        model; the kernel's copy of `trace` is kept current without sending it (a front end
        that asks for the state later gets all of it). When the run is over the whole view state
        goes out once, with the `live` flag: whatever records the kernel's messages (a
        notebook run headless by nbclient, say) then saves the final state too."""
        if self.patches and not self.finishing:
            # Proportional to what changed: the patch is built from what events touched, and
            # the kernel's copy takes it in place, as the front end's does.
            patch = self._patcher.changes(self.state)
            if patch:
                self.tell({"op": "patch", **patch})
                apply_patch(self.trace, patch)
            return
        if not self.patches:  # the whole view state at every update (for comparison)
            snapshot, text = self.state.snapshot_and_text()
            with self._view_state_written(snapshot, text), self.hold_sync():
                self.trace = snapshot
                if self.finishing:
                    self.live = False
            return
        self._send_view_state(self.state, live=False)

    def _send_view_state(self, state: ViewState, **also: Any) -> None:
        """The whole view state of `state` goes out in one message, with the new values of the
        traits in `also`, sent even when the kernel holds them already; patches start from
        it."""
        snapshot, text = state.snapshot_and_text()
        # ipywidgets' own echo guard: a value under the lock equal to it is not sent.
        with self._view_state_written(snapshot, text), self._lock_property(trace=text, **also):
            self.trace = snapshot
            for name, value in also.items():
                setattr(self, name, value)
            self.send_state(["trace", *also])
        self._reset_patches(snapshot)

    @contextmanager
    def _view_state_written(self, snapshot: dict[str, Any], text: str) -> Iterator[None]:
        """While `snapshot` is sent (and compared with what the front end has), its JSON
        text is the one written as it was copied."""
        self._view_state_text = (snapshot, text)
        try:
            yield
        finally:
            self._view_state_text = None

    def _reset_patches(self, snapshot: dict[str, Any]) -> None:
        """The front end now has `snapshot` whole: patches (for a view that sends them)
        start from it."""
        if self.patches:
            self._patcher.reset(snapshot)
        self.state.take_changed()

    def shows(self, thread_id: str) -> bool:
        return thread_id in self.state.threads

    def shown_state(self) -> ViewState:
        return self.state

    def _handle(self, message: ViewMessage) -> None:
        if isinstance(message, Select):
            chosen = message.thread
            if any(n["id"] == chosen for n in self.state.related) and not self.live:
                self.open_thread(chosen)  # a branch or the origin: the view shows it now
            self.selected = chosen
        elif isinstance(message, Ready):
            self.rendered = True
            if self.live and self.patches:
                self._resync()
            self._follow_elsewhere()
        elif isinstance(message, Fork) and self.shows(message.thread) and not self.live:
            self._forking = asyncio.ensure_future(self.fork(message))
        elif isinstance(message, Decide) and self.shows(message.thread):
            self._deciding = asyncio.ensure_future(self.decide(message))
        elif isinstance(message, Elicit) and self.shows(message.thread):
            self.elicit(message)
        elif isinstance(message, StepChoice) and message.thread == self.state.root_id:
            self.go_on(message)
        elif isinstance(message, Play) and message.thread == self.state.root_id:
            self.play(message.playing)
        elif isinstance(message, AppCall) and message.call in self.state.cards:
            calling = asyncio.ensure_future(self.app_call(message))
            self._app_calls.add(calling)
            calling.add_done_callback(self._app_calls.discard)

    def watch_pause(self, every: float = 1.0) -> None:
        """While this view shows its run paused before a model step, a run of the thread
        that goes on elsewhere — a later cell's `resume`, in this runtime or another, or
        another process — redraws it as the thread is: its Continue and Stop go, the calls
        and files that run made show. Heard at once from this runtime; looked for in the
        store every `every` seconds otherwise."""
        self.unwatch_pause()
        thread_id = self.state.root_id
        paused_run = self.state.run.get("run_id")

        def moved_on() -> None:
            if self.live:
                return
            self.open_thread(thread_id)
            self.refresh_output()
            if self.state.run.get("stop_reason") != "waiting: model step":
                self.unwatch_pause()  # no longer paused: nothing to watch

        def heard(thread: Thread, run: Run) -> None:
            if thread.id == thread_id and run.id != paused_run:
                moved_on()

        def look() -> None:
            if self.comm is None:  # the view is gone
                self.unwatch_pause()
                return
            if not _still_paused(self._rt.thread(thread_id), self.state.run.get("run_id")):
                moved_on()
            if self._unwatch is not None and loop is not None:
                self._timer = loop.call_later(every, look)

        stop_hearing = self._rt.on_run_finished(heard)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a script): heard from this runtime only
            loop = None
        self._timer: asyncio.TimerHandle | None = (
            loop.call_later(every, look) if loop is not None else None
        )

        def unwatch() -> None:
            stop_hearing()
            if self._timer is not None:
                self._timer.cancel()

        self._unwatch = unwatch

    def unwatch_pause(self) -> None:
        if self._unwatch is not None:
            unwatch, self._unwatch = self._unwatch, None
            unwatch()

    def go_on(self, asked: StepChoice) -> None:
        """Continue or Stop on a run that paused before a model step: Continue runs that step
        (and what follows, pausing where the view's step mode says) live here; Stop ends the
        view's run "interrupted", the thread's history as it stands (valid: every call has
        its result). Anything else (no such pause, a run going on) changes nothing."""
        if self.live or self.state.run.get("stop_reason") != "waiting: model step":
            return
        thread = self._rt.thread(self.state.root_id)
        if not _still_paused(thread, self.state.run.get("run_id")):
            # The thread went on elsewhere (a later cell resumed it): what the view shows is
            # stale, and a click on it shows the thread as it is instead of running anything.
            self.open_thread(thread.id)
            self.refresh_output()
            return
        self.unwatch_pause()  # the run goes on here, in this view
        if asked.action == "stop":
            self.state.ended("interrupted", "stopped before a model step")
            self.finishing = True
            self.push()
            self.refresh_output()
            return
        self._stepping = asyncio.ensure_future(self._run_here(thread, self.state, step=self.step))

    def elicit(self, answered: Elicit) -> None:
        """A server's form answered in a card: the call waiting for it goes on. A form no call
        waits for here (answered already, or a made-up one) changes nothing."""
        elicitor = self._rt.elicitor
        card = self.state.cards.get(answered.call)
        if card is None or card.get("thread") != answered.thread:
            return
        own = call_of(answered.thread, answered.call)
        if isinstance(elicitor, CardElicitor) and elicitor.asks(answered.thread, own):
            elicitor.answer(answered.thread, own, answered.action, answered.content)

    def open_thread(self, thread_id: str) -> None:
        """Show `thread_id` (with its origin and branches) instead of what the view shows."""
        thread = self._rt.thread(thread_id)
        self.show(relate(replay(thread), thread))

    def show(self, state: ViewState) -> None:
        """Show `state` from now on: the whole view state goes out once, then patches."""
        self.state = state
        self.finishing = False
        self._send_view_state(state)

    async def fork(self, asked: Fork) -> None:
        """A fork the user asked for in the view ("fork from here" on a card or a user
        message): make the branch, show it, and run it live here. What does not fit comes
        back to the view as the error the API raised."""
        thread_id, at = asked.thread, asked.at
        try:
            at_call = call_of(thread_id, at)  # a card's key, or a message's id
            thread = self._rt.thread(thread_id)
            self._can_run(thread)  # else the branch would be made, then fail to run
            branch = await thread.fork(at_call, **asked.options())
        except ThreadlabError as exc:
            self.tell({"op": "fork_error", "thread": thread_id, "at": at, "error": str(exc)})
            return
        except Exception as exc:  # the form must not wait for an answer that never comes
            log.exception("a fork of %s failed", thread_id)
            error = f"the fork failed ({type(exc).__name__}): nothing was run"
            self.tell({"op": "fork_error", "thread": thread_id, "at": at, "error": error})
            return
        self.play(False)  # the branch is shown as it runs; its own history can be played
        self.selected = branch.id
        await self._run_here(branch, relate(replay(branch), branch))

    def _can_run(self, thread: Thread) -> None:
        """A `ThreadlabError` saying what to do when this kernel lacks the definitions a
        branch of `thread` runs on (a notebook reopened, its definition cells not run)."""
        # Every agent the thread was answered by: a branch answers as the one at its cut.
        handed = {e.agent for e in thread.events if isinstance(e, HandoffEvent)}
        for target in sorted({thread.agent, thread.answering_agent, *handed}):
            try:
                self._rt.check(target)
            except DefinitionError as exc:
                raise DefinitionError(
                    f"a branch cannot run in this kernel: {exc}. Definitions live in the"
                    " kernel, not in the store: run the cells that define them first."
                ) from None

    async def decide(self, asked: Decide) -> None:
        """A decision clicked in a card: Approve (with edited `arguments`, checked against the
        tool's schema first) or Reject (with a `reason`). A run waiting here for it goes on;
        a thread whose run ended waiting (reopened later) records it and resumes here, live.
        What does not fit comes back to the card as the error, with nothing recorded."""
        thread_id, call_id, approved = asked.thread, asked.call, asked.approved
        arguments = asked.arguments if approved else None
        reason = asked.reason or None
        card = self.state.cards.get(call_id)
        if card is None or card.get("thread") != thread_id:
            self._refuse(thread_id, call_id, "that call is not in this view")
            return
        if arguments is not None:
            problems = self._rt.registry.check_arguments(card["name"], arguments)
            if problems:
                self._refuse(thread_id, call_id, f"invalid arguments: {'; '.join(problems)}")
                return
        approver = self._rt.approver
        own = call_of(thread_id, call_id)
        if isinstance(approver, CardApprover) and approver.asks(thread_id, own):
            approver.decide(thread_id, own, Approval(approved, arguments=arguments, reason=reason))
            return
        if self.live:
            self._refuse(thread_id, call_id, "the run is not waiting for this call here")
            return
        thread = self._rt.thread(thread_id)
        if not any(r.thread_id == thread_id and r.tool_call_id == own for r in thread.pending):
            # Not a descendant's call of the same id: the card's call, or none.
            self._refuse(thread_id, call_id, "that call does not wait for a decision")
            return
        try:
            if approved:
                await thread.approve(own, arguments=arguments, by="view")
            else:
                await thread.reject(own, reason or "", by="view")
        except ThreadlabError as exc:
            self._refuse(thread_id, call_id, str(exc))
            return
        decided = [
            e
            for e in thread.events
            if isinstance(e, ApprovalDecidedEvent) and e.tool_call_id == own
        ]
        self.state.apply(decided[-1])  # recorded before the run: the card says so too
        await self._run_here(self._rt.thread(self.state.root_id), self.state)

    async def _run_here(self, thread: Thread, state: ViewState, step: bool | str = False) -> None:
        """Show `state` and run `thread` (its root) live here, from what its history leaves
        open: a branch made here, a thread decided on here, a paused step continued."""
        state.start_run()
        self.live = True
        self.show(state)
        try:
            stream = RunStream(self._rt, thread, state, self.push, self._finish, self.rate)
            await stream.run(None, step=step)
        except ThreadlabError as exc:  # it cannot run here (a definition is gone)
            state.run = {"status": "idle", "text": None, "error": str(exc), "usage": None}
            self.finishing = True
            self.push()
        self.refresh_output()  # what the notebook keeps is the view as the run left it
        if state.run.get("stop_reason") == "waiting: model step":
            self.watch_pause()

    async def app_call(self, asked: AppCall) -> None:
        """A call's app (its tool's UI, under the card) calls a tool: run for it by the
        public API, recorded with the call (the card shows it); the app gets the result, or
        why not. At most `APP_CALLS_PER_MINUTE` a minute per call, whatever the page sends."""
        card = self.state.cards.get(asked.call)
        answer: AppResultMessage = {
            "op": "app_result", "call": asked.call, "request": asked.request,
        }  # fmt: skip
        now = time.monotonic()
        recent = [t for t in self._app_call_times.get(asked.call, []) if now - t < 60]
        try:
            if card is None or card.get("thread") != asked.thread:
                raise ThreadlabError("that call is not in this view")
            if len(recent) >= APP_CALLS_PER_MINUTE:
                raise ThreadlabError(f"more than {APP_CALLS_PER_MINUTE} tool calls in a minute")
            self._app_call_times[asked.call] = [*recent, now]
            answer["result"] = await call_for_app(
                self._rt, asked.thread, call_of(asked.thread, asked.call), asked.name,
                asked.arguments,
            )  # fmt: skip
        except ThreadlabError as exc:
            answer["error"] = str(exc)
        self.tell(answer)
        self._show_app_calls(asked.thread, asked.call)

    def _show_app_calls(self, thread_id: str, call_id: str) -> None:
        """The app's calls recorded with `call_id` that its card does not show yet."""
        card = self.state.cards.get(call_id)
        if card is None:
            return
        known = {e.get("at") for e in card["events"] if e.get("type") == APP_CALL_EVENT}
        # A card keeps its latest events: one older than those it kept was shown already.
        kept = card["events"]
        floor = kept[0].get("at", 0.0) if card.get("events_dropped") and kept else None
        for event in self._rt.thread(thread_id).events:
            if (
                isinstance(event, CustomEvent)
                and event.event_type == APP_CALL_EVENT
                and event.tool_call_id == call_of(thread_id, call_id)
                and event.at not in known
                and (floor is None or event.at > floor)
            ):
                self.state.apply(event)
        self.push()

    def _refuse(self, thread_id: str, call_id: str, error: str) -> None:
        self.tell({"op": "decide_error", "thread": thread_id, "call": call_id, "error": error})

    def _finish(self) -> None:
        self.finishing = True

    def _resync(self) -> None:
        """A front end that rendered after patches went out missed them (a patch reaches only
        the views already listening): it gets the whole view state now, patches from here on."""
        self._send_view_state(self.state)

    def streaming(self) -> bool:
        return self.live

    def saved_state(self) -> dict[str, Any]:
        # The synced view state is kept current by push() and show(): no second snapshot.
        return {**super().saved_state(), "trace": self.trace, "selected": self.selected}

    def __repr__(self) -> str:
        return self._static().text

    def static_html(self) -> str:
        return self._static().html

    def _static(self) -> StaticView:
        """What this view shows, drawn from its thread's steps."""
        return StaticView(self._rt.thread(self.state.root_id), self.state)

    def static_texts(self) -> tuple[str, str]:
        root = self.state.root_id
        if self.streaming() and not self.finishing:
            # Brought up to date when the run ends: what a run's first moment would show is
            # not worth reading a long history for before the view can be drawn.
            text = f"threadlab thread {root} — a run is streaming into this view"
            return text, f"<pre>{html.escape(text)}</pre>"
        shown = self._static()  # its steps read once for both
        return shown.text, shown.html


class OpeningView(_View):
    """A view of rows that name threads: opening one shows its inspector below them."""

    rows: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    opened = traitlets.Dict().tag(sync=True)
    decides = traitlets.Bool(False).tag(sync=True)
    """An opened thread is shown to read: its waiting calls are decided where the thread is
    open (`%threadlab open ID`, its own cell), never from a list of threads."""

    def __init__(self, rt: Runtime, **kwargs: Any) -> None:
        super().__init__(rt, **kwargs)
        self._opened: ViewState | None = None

    def open_thread(self, thread_id: str) -> ViewState:
        """Show the inspector of `thread_id` below the rows."""
        state = replay(self._rt.thread(thread_id))
        self.opened = state.snapshot()
        self._opened = state
        return state

    def shows(self, thread_id: str) -> bool:
        return self._opened is not None and thread_id in self._opened.threads

    def shown_state(self) -> ViewState | None:
        return self._opened

    def _handle(self, message: ViewMessage) -> None:
        if isinstance(message, Open):
            self.open_thread(message.thread)

    def saved_state(self) -> dict[str, Any]:
        return {**super().saved_state(), "rows": self.rows, "opened": {}}


class ThreadListView(OpeningView):
    """Persisted threads, newest first; opening one shows its inspector below the list."""

    def __init__(self, rt: Runtime, *, origin: str | None = None, **kwargs: Any) -> None:
        super().__init__(rt, view="threads", **kwargs)
        self.origin = origin
        self.refresh()

    def refresh(self) -> None:
        """Re-read the list: one query for every root thread's counts and last run (only the
        threads made in notebook `origin`, when one is given, and the calls MCP clients made
        of the tools served from the store)."""
        rows = [_row(thread) for thread in self._rt.overview()]
        shown = (self.origin, MCP_ORIGIN)
        self.rows = [r for r in rows if self.origin is None or r["origin"] in shown]

    def static_html(self) -> str:
        columns = ("thread", "agent", "notebook", "status", "messages")
        head = "".join(f"<th>{c}</th>" for c in columns)
        rows = "".join(
            f"<tr><td><code>{html.escape(r['id'])}</code>{_branch_of_html(r)}</td>"
            f"<td>{html.escape(r['agent'])}</td>"
            f"<td>{html.escape(r['notebook'] or '')}</td><td>{html.escape(r['status'])}</td>"
            f"<td>{r['messages']}</td></tr>"
            for r in self.rows
        )
        return f'<table class="threadlab-threads"><tr>{head}</tr>{rows}</table>'

    def __repr__(self) -> str:
        where = f" made in {self.origin}" if self.origin else ""
        count = len(self.rows)
        lines = [f"{count} thread{'' if count == 1 else 's'}{where} (newest first)"]
        lines += [
            f"  {r['id']}  {r['agent']}  {r['status']}  {r['messages']} messages"
            + (f"  (branch of {r['forked_from']})" if r.get("forked_from") else "")
            for r in self.rows
        ]
        return "\n".join(lines)


MCP_ORIGIN = "mcp"  # threads of calls from MCP clients (threadlab.mcp)


def _branch_of_html(row: dict[str, Any]) -> str:
    origin = row.get("forked_from")
    return f"<br><small>branch of <code>{html.escape(origin)}</code></small>" if origin else ""


def _still_paused(thread: Thread, run_id: str | None) -> bool:
    """Whether `thread` still stands where run `run_id` paused before a model step: no run
    went on from there since (a view drawn before that is stale)."""
    if thread.status != "waiting":
        return False
    for event in reversed(thread.events):
        if event.type == "run_finished" and not event.depth:
            return event.run_id == run_id and event.stop_reason == "waiting: model step"
    return False


def _near(origin: str | None) -> str | None:
    """A notebook's path as read from here: relative to the kernel's folder (the notebook's
    own, under a Jupyter server), rather than the server's absolute path."""
    if origin is None or not os.path.isabs(origin):
        return origin
    try:
        return os.path.relpath(origin)
    except ValueError:  # another drive
        return origin


def _row(thread: ThreadOverview) -> dict[str, Any]:
    origin = thread.origin
    return {
        "id": thread.id,
        "agent": thread.agent,
        "origin": origin,
        "notebook": "an MCP client" if origin == MCP_ORIGIN else _near(origin),
        "created_at": thread.created_at,
        "status": thread.status,
        "messages": thread.messages,
        "children": thread.children,
        "forked_from": thread.forked_from,
    }

"""The checks a grade is made of: each reads the path an agent took (`AgentPath`) and says
whether it passed, with one line of feedback a student can act on. A check is also a scorer
for `tl.evaluate` and `%%eval` (called with the row's context, it answers True or False)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import DefinitionError
from ._path import AgentPath

if TYPE_CHECKING:
    from ..runtime import Thread

__all__ = [
    "Check",
    "answer_contains",
    "approved_before_run",
    "call_count",
    "called",
    "called_before",
    "no_secret_leaked",
    "not_called",
    "within_budget",
]

Verdict = tuple[bool, str]
"""Whether a check passed, and its feedback line."""
_SECRET_MARK = re.compile(r"\[secret:([^\]\s]+)\]")


@dataclass(frozen=True)
class Check:
    """One thing to check of the path an agent took (make one with `g.called(...)` and the
    other functions of `threadlab.grading`)."""

    name: str
    """What it checks, as a report's column says it: "called(write_file, path='/index.html')"."""
    judge: Callable[[AgentPath], Verdict]
    tools: tuple[str, ...] = ()
    """The tools it names: each must be a tool the graded thread could call."""

    def verdict(self, path: AgentPath) -> Verdict:
        """Whether `path` passes, and the line that says why; `DefinitionError` when it names
        a tool the thread could not call (a typo would otherwise grade as a silent zero)."""
        for tool in self.tools:
            if not path.knows_tool(tool):
                close = difflib.get_close_matches(tool, path.tool_names(), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise DefinitionError(
                    f"the check {self.name} names tool {tool!r}, which thread"
                    f" {path.thread.id} has no definition of and never called{hint}"
                )
        return self.judge(path)

    @property
    def __name__(self) -> str:  # a scorer's column in an evaluation report
        return self.name

    def __call__(self, ctx: Any) -> bool:
        """As a `tl.evaluate` scorer: whether the row's thread passes."""
        thread: Thread = ctx.thread
        return self.verdict(AgentPath(thread))[0]


def called(tool: str, **arguments: Any) -> Check:
    """Some call of `tool` had (at least) these argument values."""
    shown = _shown(arguments)

    def judge(path: AgentPath) -> Verdict:
        calls = path.calls_of(tool)
        for call in calls:
            given = call.arguments if isinstance(call.arguments, dict) else {}
            if all(given.get(k) == v for k, v in arguments.items()):
                return True, f"{tool} was called" + (f" with {shown}" if shown else "")
        if not calls or not arguments:
            return False, f"{tool} was never called" + (f" with {shown}" if shown else "")
        which = "its call" if len(calls) == 1 else f"the first of its {len(calls)} calls"
        had = _shown(_first_arguments(calls[0].arguments, arguments))
        return False, f"{tool} was never called with {shown} ({which} had {had})"

    return Check(f"called({tool}{', ' + shown if shown else ''})", judge, (tool,))


def not_called(tool: str) -> Check:
    """No call of `tool` was made."""

    def judge(path: AgentPath) -> Verdict:
        count = len(path.calls_of(tool))
        if count:
            return False, f"{tool} was called {_times(count)}; it should not be called"
        return True, f"{tool} was not called"

    return Check(f"not_called({tool})", judge, (tool,))


def called_before(first: str, then: str) -> Check:
    """`first` was called before any call of `then` (and `then` was called)."""

    def judge(path: AgentPath) -> Verdict:
        names = [call.name for call in path.calls]
        if then not in names:
            return False, f"{then} was never called"
        if first not in names:
            return False, f"{first} was never called; it should come before {then}"
        if names.index(first) > names.index(then):
            return False, f"{then} was called before {first}; call {first} first"
        return True, f"{first} was called before {then}"

    return Check(f"called_before({first}, {then})", judge, (first, then))


def call_count(
    tool: str, n: int | None = None, *, at_least: int | None = None, at_most: int | None = None
) -> Check:
    """`tool` was called exactly `n` times, or at least / at most so many."""
    if n is None and at_least is None and at_most is None:
        raise ValueError("call_count needs n, at_least or at_most")
    bounds = [f"n={n}"] if n is not None else []
    bounds += [f"at_least={at_least}"] if at_least is not None else []
    bounds += [f"at_most={at_most}"] if at_most is not None else []

    def judge(path: AgentPath) -> Verdict:
        count = len(path.calls_of(tool))
        wanted = []
        if n is not None and count != n:
            wanted.append(f"exactly {n}")
        if at_least is not None and count < at_least:
            wanted.append(f"at least {at_least}")
        if at_most is not None and count > at_most:
            wanted.append(f"at most {at_most}")
        said = f"{tool} was called {_times(count)}"
        return (not wanted, said if not wanted else f"{said}; expected {' and '.join(wanted)}")

    return Check(f"call_count({tool}, {', '.join(bounds)})", judge, (tool,))


def answer_contains(text: str, *, case_sensitive: bool = False) -> Check:
    """The thread's final answer contains `text` (ignoring case unless `case_sensitive`)."""

    def judge(path: AgentPath) -> Verdict:
        answer = path.answer
        found = text in answer if case_sensitive else text.lower() in answer.lower()
        if found:
            return True, f"the final answer contains {text!r}"
        if not answer:
            return False, f"there is no final answer; it should contain {text!r}"
        if case_sensitive and text.lower() in answer.lower():
            return False, f"the final answer does not contain {text!r} in that case (upper/lower)"
        return False, f"the final answer does not contain {text!r}"

    return Check(f"answer_contains({text!r})", judge)


def within_budget(max_tokens: int | None = None, max_cost_usd: float | None = None) -> Check:
    """Every model step together used at most `max_tokens` tokens (input and output) and
    cost at most `max_cost_usd` (from known prices)."""
    if max_tokens is None and max_cost_usd is None:
        raise ValueError("within_budget needs max_tokens or max_cost_usd")
    bounds = [f"max_tokens={max_tokens}"] if max_tokens is not None else []
    bounds += [f"max_cost_usd={max_cost_usd}"] if max_cost_usd is not None else []

    def judge(path: AgentPath) -> Verdict:
        tokens, cost = path.usage
        over = []
        if max_tokens is not None and tokens > max_tokens:
            over.append(f"{tokens:,} tokens; the budget is {max_tokens:,}")
        if max_cost_usd is not None and cost > max_cost_usd:
            over.append(f"${cost:.4f}; the budget is ${max_cost_usd:.4f}")
        if over:
            return False, "the run used " + " and ".join(over)
        return True, f"the run used {tokens:,} tokens (${cost:.4f}), within the budget"

    return Check(f"within_budget({', '.join(bounds)})", judge)


def approved_before_run(tool: str) -> Check:
    """Every call of `tool` ran only after a decision approved it (its definition asks for
    one, `approval=`): none ran without, none ran after a rejection."""

    def judge(path: AgentPath) -> Verdict:
        calls = path.calls_of(tool)
        for call in calls:
            if call.tool_status is not None and call.decision is None:  # answered, undecided
                return False, f"{tool} ran without an approval (call {call.tool_call_id})"
        if not calls:
            return True, f"{tool} was never called, so it never ran unapproved"
        return True, f"every call of {tool} waited for an approval before it ran"

    return Check(f"approved_before_run({tool})", judge, (tool,))


def no_secret_leaked() -> Check:
    """No secret's value reached a message, a call's arguments or result, or a file: the
    stored history holds neither the value nor the mark redaction put in its place."""

    def judge(path: AgentPath) -> Verdict:
        unknown = path.unreadable_secrets()
        if unknown:  # fail closed: a leak of a value not known here cannot be seen
            return False, (
                f"cannot check: the secrets {', '.join(unknown)} are encrypted with another key"
                " than this runtime's (grade with the key the thread ran with)"
            )
        for where, text in path.texts():
            marked = _SECRET_MARK.search(text)
            if marked is not None:
                return False, f"the secret {marked[1]} reached {where}"
            if path.thread.redact(text) != text:
                return False, f"a secret's value reached {where}"
        return True, "no secret reached a message, a call or a file"

    return Check("no_secret_leaked()", judge)


def _shown(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in arguments.items())


def _first_arguments(given: Any, wanted: dict[str, Any]) -> dict[str, Any]:
    """The values the first call gave for the arguments a check looks for."""
    given = given if isinstance(given, dict) else {}
    return {key: given.get(key) for key in wanted}


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"

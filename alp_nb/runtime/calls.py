"""Watching a script's agent calls as it makes them: the record of each call, and which calls came after a live one.

A resume serves every call whose key is journaled and runs the rest; what a reader of a run wants to know is
which is which, call by call. ``run_workflow(..., on_call=...)`` (and a dry run) hands an observer one
``ObservedCall`` per ``agent()`` call, in the task of the script that made it, after the call is answered and
before the script gets its value, so an observer may also pause the script there (a replay steps that way).

``after_live`` says whether the call was made after a live call its script could have waited for: earlier in
the same line of the script, or, after a ``parallel`` or ``pipeline`` barrier, in any branch that joined it.
Branches running side by side do not taint each other. A dry run answers a live call with a stand-in, so a
call made after one may have been asked differently than a real resume would ask it: that is what the flag is
for. Only runs with an observer track it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import msgspec

from .journal.outcomes import CallOutcome


class ObservedCall(msgspec.Struct, frozen=True, gc=False):
    """One ``agent()`` call as it was made: what was asked, where, and how it was answered. (A frozen struct, not a
    frozen dataclass: a dry run of 100,000 calls makes as many, and a dataclass takes 2 µs to make each; it holds no
    reference cycle, so the collector never scans it.)

    ``outcome``: ``cached`` (served from the journal: an earlier attempt's line, or this attempt's own for a call
    made again), ``live`` (a runner answered it) or ``failed`` (no answer was kept; ``error`` says why).
    ``seq`` is the journal line of the answer; ``tokens`` what that answer cost when it was made (a cached call
    costs nothing again: those are the tokens it saves).
    """

    key: str
    label: str
    prompt: str
    schema: Any
    phase: str | None
    workflow: str | None
    outcome: CallOutcome
    value: Any = None
    tokens: int = 0
    seq: int | None = None
    after_live: bool = False
    error: str | None = None
    where: str | None = None
    """``file:line`` of the script's code that asked for the call."""


CallObserver = Callable[[ObservedCall], Any]


class Flow(msgspec.Struct, gc=False):
    """One line of a script's execution: whether a live call happened in it yet. A barrier's branches each get a
    flow of their own, started from their parent's; when the barrier is passed the parent takes in theirs. (A
    branch per call of a fan-out: holding no reference, it is never scanned by the collector.)"""

    live: bool = False


FLOW: ContextVar[Flow | None] = ContextVar("alp_nb_call_flow", default=None)
"""The flow of the running task (None when no observer watches the run: nothing is tracked)."""


def current_flow() -> Flow:
    """The running task's flow, started here if it has none yet."""
    flow = FLOW.get()
    if flow is None:
        flow = Flow()
        FLOW.set(flow)
    return flow

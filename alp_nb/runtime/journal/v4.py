"""The decoder of ``v`` 4 lines, the format written now: each line decoded straight into its record, and each
answer joined with the ask it names.

A ``v`` 4 line is what ``JournalWriter`` wrote: compact JSON ending in a 12-digit seal, with ``v``, ``seq``,
``kind`` and ``at`` (seconds after the latest ``epoch``: the first line each writer writes carries one, seconds
since 1970). An ask holds what its call is; an answer or a spend names its ask (``ask``) and holds only what came
back. So the decoder keeps the epoch, the asks not answered yet and when a retried call was first asked, and hands
on each answer with its ask. The types below are the records as a ``v`` 4 writer writes them: every field it always
writes is required, and none other is allowed; msgspec checks all of it as it parses.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from alp_nb.base.frozen_struct import UNKNOWN, refusal

from ..errors import WorkflowInputError
from .lines import EARLIER_LINE, Answer, Answered, AnswerNumber, Ask, AskSeq, CallKey, Seconds, Seq, Spend, Tokens
from .outcomes import SpendReason

VERSION = 4


class V4Ask(Ask, tag="ask", frozen=True, kw_only=True):
    v: Literal[4]
    seq: Seq
    at: Seconds
    epoch: Seconds | None = None
    key: CallKey
    label: str
    phase: str | None = None
    prompt: str
    attempts: AnswerNumber = 1
    sum: str


class V4Answer(Answer, tag="agent", frozen=True, kw_only=True):
    v: Literal[4]
    seq: Seq
    at: Seconds
    epoch: Seconds | None = None
    ask: AskSeq
    value: Any
    tokens: Tokens
    sum: str


class V4Spend(Spend, tag="spend", frozen=True, kw_only=True):
    v: Literal[4]
    seq: Seq
    at: Seconds
    epoch: Seconds | None = None
    ask: AskSeq
    tokens: Tokens
    reason: SpendReason
    error: str | None = None
    issues: tuple[str, ...] | None = None
    sum: str


V4Line = V4Ask | V4Answer | V4Spend
KINDS: dict[str, type[V4Line]] = {"ask": V4Ask, "agent": V4Answer, "spend": V4Spend}
decode = msgspec.json.Decoder(V4Line).decode
"""One sealed ``v`` 4 line (bytes, without its newline) as its record; msgspec.ValidationError (``why`` says
what) or msgspec.DecodeError when it is not one."""


def why(record: Any) -> str:
    """What is wrong with ``record`` (the line parsed as plain JSON) as a ``v`` 4 line, in the words of its
    field's type."""
    kind = record.get("kind")
    line_type = KINDS.get(kind) if isinstance(kind, str) else None
    if line_type is None:
        return f"`kind` {msgspec.json.encode(kind).decode()} is not a kind of line a v{VERSION} journal holds"
    problem = refusal(line_type, record)
    return f"{problem}: no v{VERSION} writer writes it" if problem.startswith(UNKNOWN) else problem


class Pairing:
    """What reading ``v`` 4 lines keeps: the epoch their times count from, the asks not answered yet (by seq), and
    when each retried call was first asked."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.epoch: float | None = None
        self.open: dict[int, tuple[V4Ask, float, int]] = {}
        self.retried: dict[str, float] = {}

    def take(self, line: V4Line, line_no: int) -> Answered | None:
        """The answer ``line`` with its ask; None for an ask, kept until a line answers it. JOURNAL_TAMPERED when
        a line's epoch or ask is not before it, JOURNAL_CORRUPT for an answer naming a later line."""
        epoch = line.epoch
        if epoch is not None:
            self.epoch = epoch
        elif self.epoch is None:
            raise WorkflowInputError("JOURNAL_TAMPERED", f"{self.name} line {line_no}: no line before it carries "
                                     "the epoch its time counts from, so its writer's first line was removed")
        at = self.epoch + line.at
        if isinstance(line, V4Ask):
            if line.attempts > 1:
                at = self.retried.pop(line.key, at)
            self.open[line.seq] = (line, at, line_no)
            return None
        if line.ask >= line.seq:
            raise WorkflowInputError("JOURNAL_CORRUPT", f"{self.name} line {line_no}: `ask` must be {EARLIER_LINE}")
        opened = self.open.pop(line.ask, None)
        if opened is None:
            raise WorkflowInputError("JOURNAL_TAMPERED", f"{self.name} line {line_no} answers the ask at seq "
                                     f"{line.ask}, which no line before it holds unanswered")
        ask, started, _line = opened
        if isinstance(line, V4Spend) and line.reason == "retried":
            self.retried[ask.key] = started
        return Answered(ask, line, line_no, started, at)

    def unanswered(self) -> list[tuple[V4Ask, float, int]]:
        """Each ask no line answered, with when it was asked and its line."""
        return list(self.open.values())

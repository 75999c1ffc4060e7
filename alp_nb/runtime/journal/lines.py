"""A journal's lines as typed records, and what every reader of a run is handed: ``Answered``.

The current format (``v`` 4) has three kinds of line, a tagged union on ``kind``: an ``Ask`` says what a call is
(its key, label, phase, prompt, schema, and which answer of it is asked for), written before the runner is asked;
an ``Answer`` (``kind: "agent"``) holds the answer a call keeps and a ``Spend`` an answer paid for but not kept,
each naming its ask by seq. Every format's decoder gives these records: a ``v`` 4 line decodes straight into its
record (``v4.py`` holds the stricter form a writer writes), and a line of an older format is upgraded into the
same records (``whole_lines.py``), with what it does not say left None. An ``Answered`` joins an answer with the
ask it answers and says where it stands in the file and when it ran.

Each number a record holds has a bound and each constraint its words (a ``description``), which every refusal of
a line says (``base.frozen_struct.refusal``).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

MAX_COUNT = 2**63 - 1
"""The most a seq or a token count may be: every reader holds them as 64-bit integers."""
MAX_SECONDS = 10.0**10
"""The most a time may count, in seconds (the year 2286 since 1970; three centuries after an epoch)."""

EARLIER_LINE = "the seq of an earlier line"
"""What an answer's ``ask`` must be."""

Seq = Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT, description="a positive integer")]
AskSeq = Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT, description=EARLIER_LINE)]
Tokens = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT, description="a non-negative integer")]
AnswerNumber = Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT, description="a positive integer")]
Seconds = Annotated[float, msgspec.Meta(ge=0, le=MAX_SECONDS, description="a non-negative number of seconds")]
CallKey = Annotated[str, msgspec.Meta(pattern="^agent-", description="a string agent-<hash>")]


class JournalLine(msgspec.Struct, frozen=True, kw_only=True, gc=False, forbid_unknown_fields=True,
                  omit_defaults=True, tag_field="kind"):
    """What every line says of itself. (Records hold no reference cycles, so the collector never tracks them.)"""

    v: int | None = None
    """The format that wrote the line; None for the s16 reference's lines."""
    seq: int
    """Its number: a writer numbers its lines 1, 2, 3... without a gap (an s16 line, unnumbered, its position)."""
    at: float | None = None
    """When it was written, in seconds after the latest epoch (``v`` 4); None in older lines, whose times their
    ``Answered`` holds."""


class Ask(JournalLine, tag="ask", frozen=True, kw_only=True):
    """A runner call asked: which call (what ``call_key`` was made from), and which answer of it."""

    key: str
    label: str | None = None
    phase: str | None = None
    prompt: str | None = None
    schema: Any = None
    attempts: int = 1
    """Which answer of the call is asked for: 2 after a first answer broke the call's schema."""


class Answer(JournalLine, tag="agent", frozen=True, kw_only=True):
    """The answer a call keeps: the one a resume serves."""

    ask: int
    value: Any = None
    tokens: int | None = None
    """What the answer cost; None where the line records none (the s16 reference's)."""


class CopiedAnswer(Answer, tag="agent", frozen=True, kw_only=True):
    """An answer a fork copied from its source run before its first attempt (``overridden``: the fork's
    replacement, which cost nothing)."""

    copied_from: str | None = msgspec.field(default=None, name="copiedFrom")
    overridden: bool = False


class Spend(JournalLine, tag="spend", frozen=True, kw_only=True):
    """An answer paid for and not kept: why (``reason``: a ``SpendReason``; None where an old line's is not text),
    and what the runner said (``error``) or the schema found (``issues``)."""

    ask: int
    tokens: int = 0
    reason: str | None = None
    error: str | None = None
    issues: tuple[str, ...] | None = None


class Answered(msgspec.Struct, frozen=True, gc=False):
    """An answer (kept, or spent) with the ask it answers, the line of the file it is on, and when its call ran:
    ``started`` when it was first asked (a retried call's first ask), ``ended`` when this answer came back (seconds
    since 1970; None where the lines do not say)."""

    ask: Ask
    answer: Answer | Spend
    line: int
    started: float | None = None
    ended: float | None = None

    @property
    def key(self) -> str:
        return self.ask.key

    @property
    def seq(self) -> int:
        return self.answer.seq

    @property
    def value(self) -> Any:
        """The answer its call keeps; None for a spend."""
        answer = self.answer
        return answer.value if isinstance(answer, Answer) else None

    @property
    def tokens(self) -> int:
        """What the answer cost (0 where the line records nothing)."""
        return self.answer.tokens or 0

    @property
    def kept(self) -> bool:
        """The answer its call keeps, as opposed to one paid for and not kept."""
        return not isinstance(self.answer, Spend)

"""One journaled answer as a viewer shows it: the call and its answer in one flat, frozen record."""

from __future__ import annotations

from typing import Any

import msgspec

from alp_nb.base.frozen_struct import FrozenStruct

from .lines import Answered, Spend
from .seal import FIRST_SEALED_VERSION


class JournalEntry(FrozenStruct, frozen=True, kw_only=True, omit_defaults=True):
    """An answer with its call's fields, as ``v`` 3 lines said them all on one line: ``kind`` ``agent`` (the
    answer the call keeps: ``value``, ``prompt`` and ``schema`` too) or ``spend``; ``started`` when the call was
    first asked, ``ended`` when this answer came back (seconds since 1970). ``value`` and ``schema`` are
    deep-frozen."""

    FROZEN = ("value", "schema_")
    key: str
    value: Any = None
    v: int | None = None
    seq: int | None = None
    kind: str | None = None
    label: str | None = None
    phase: str | None = None
    prompt: str | None = None
    schema_: Any = msgspec.field(default=None, name="schema")
    tokens: int = 0
    attempts: int | None = None
    started: float | None = None
    ended: float | None = None

    @classmethod
    def of(cls, answered: Answered) -> JournalEntry:
        ask, answer = answered.ask, answered.answer
        if isinstance(answer, Spend):
            return cls(key=ask.key, v=answer.v, seq=answer.seq, kind="spend", label=ask.label, phase=ask.phase,
                       tokens=answer.tokens, attempts=ask.attempts, started=answered.started, ended=answered.ended)
        return cls(key=ask.key, value=answer.value, v=answer.v, seq=answer.seq, kind="agent", label=ask.label,
                   phase=ask.phase, prompt=ask.prompt, schema_=ask.schema, tokens=answer.tokens or 0,
                   attempts=ask.attempts, started=answered.started, ended=answered.ended)

    @property
    def legacy(self) -> bool:
        """True for a line written before lines carried a checksum: the s16 reference's, or our ``v`` 1."""
        return self.v is None or self.v < FIRST_SEALED_VERSION

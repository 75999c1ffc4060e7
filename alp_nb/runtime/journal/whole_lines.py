"""The decoder of the formats whose lines each say all about their call: ``v`` 3 and ``v`` 2 (sealed), and the
legacy lines written before seals, our ``v`` 1 and the s16 reference's (``key`` and ``value`` only).

Such a line is upgraded into the records of the current format: an ask line into an ``Ask``, an answer or spend
line into an ``Answered``, its ``Ask`` made from the line's own call fields (``key``, ``label``, ``phase``,
``prompt``, ``schema``, ``attempts``) and its times from the line (a spend line's start from the latest ask of its
call). A fork still writes its copied calls as ``v`` 3 lines (a ``CopiedAnswer``), which stand alone.

What a resume reads of such a line (its key, its value or the tokens it spent, its seq, an ask's answer number) is
checked, and a line that fails is refused. What only a viewer reads (label, phase, prompt, times, reason) may be
of the wrong type in a line that resumes, so it is read as missing and noted (``malformed``), so that a journal
that resumes can always be shown. A sealed line may hold only the fields its version's writer wrote.
"""

from __future__ import annotations

import json
from typing import Any

from .lines import MAX_COUNT, Answer, Answered, Ask, CopiedAnswer, Spend

_COMMON = frozenset(("v", "seq", "key", "kind", "label", "phase", "attempts", "sum"))
_V3_FIELDS = {
    "agent": _COMMON | {"prompt", "schema", "value", "tokens", "started", "ended", "copiedFrom", "overridden"},
    "spend": _COMMON | {"tokens", "reason", "ended", "error", "issues"},
    "ask": _COMMON | {"started"},
}
FIELDS = {2: {"agent": _V3_FIELDS["agent"], "spend": _V3_FIELDS["spend"]}, 3: _V3_FIELDS}
"""The kinds of line a sealed line of each version may be, and the fields each may hold."""
TEXT_FIELDS = ("reason", "phase", "started", "ended", "label", "prompt", "attempts")
"""The fields only a viewer reads, in the order a malformed one is named."""


def check_fields(record: dict[str, Any], version: int) -> str:
    """What a sealed ``record`` of ``version`` holds that no writer of that version wrote ("" when nothing)."""
    kind = record.get("kind")
    fields = FIELDS[version].get(kind) if isinstance(kind, str) else None
    if fields is None:
        return f"`kind` {_shown(kind)} is not a kind of line a v{version} journal holds"
    unknown = record.keys() - fields
    return f"unknown field `{min(unknown)}`: no v{version} writer writes it" if unknown else ""


def check_call(record: dict[str, Any]) -> str:
    """What a resume needs of a whole line and it lacks ("" when nothing): its key, its seq, the value it keeps or
    the tokens it spent, an ask's answer number."""
    key = record.get("key")
    if type(key) is not str or not key.startswith("agent-"):
        return "`key` must be a string agent-<hash>"
    seq = record.get("seq")
    kind = record.get("kind")
    if not _count(seq, 0) and (seq is not None or kind == "ask"):
        return "`seq` must be a non-negative integer"
    if kind == "ask":
        return "" if _count(record.get("attempts"), 1) else "`attempts` must be a positive integer"
    if kind != "spend" and "value" not in record:
        return "`value` is missing"
    if not _count(record.get("tokens", 0), 0) or (kind == "spend" and "tokens" not in record):
        return "`tokens` must be a non-negative integer"
    return ""


class WholeLines:
    """What reading whole lines keeps: the asks not answered yet, by call (an answer answers the latest ask of its
    call: the asks of one call never overlap), and the viewer fields found malformed."""

    def __init__(self) -> None:
        self.asked: dict[str, list[tuple[Ask, float | None, int]]] = {}
        self.malformed: list[tuple[int, str]] = []

    def take(self, record: dict[str, Any], seq: int, line_no: int) -> Answered | None:
        """The answer ``record`` (checked by ``check_call``) with its call's ask; None for an ask, kept until a
        line answers it."""
        text = _viewer_fields(record, line_no, self.malformed)
        kind = record.get("kind", "agent")
        ask = Ask(v=record.get("v"), seq=seq, key=record["key"], label=text.get("label"), phase=text.get("phase"),
                  prompt=None if kind == "spend" else text.get("prompt"), schema=record.get("schema"),
                  attempts=text.get("attempts") or 1)
        started = text.get("started")
        if kind == "ask":
            self.asked.setdefault(ask.key, []).append((ask, started, line_no))
            return None
        waiting = self.asked.get(ask.key)
        if waiting:
            _asked, asked_at, _line = waiting.pop()
            if started is None:  # when it was asked: a spend line's start
                started = asked_at
        return Answered(ask, _answer(record, kind, seq, text), line_no, started, text.get("ended"))

    def unanswered(self) -> list[tuple[Ask, float | None, int]]:
        """Each ask no line answered, with when it was asked and its line."""
        return [ask for waiting in self.asked.values() for ask in waiting]


def _answer(record: dict[str, Any], kind: str, seq: int, text: dict[str, Any]) -> Answer | Spend:
    version = record.get("v")
    if kind == "spend":
        error, issues = record.get("error"), record.get("issues")
        return Spend(v=version, seq=seq, ask=seq, tokens=record["tokens"], reason=text.get("reason"),
                     error=error if isinstance(error, str) else None,
                     issues=tuple(issues) if isinstance(issues, list) and all(isinstance(issue, str)
                                                                              for issue in issues) else None)
    tokens = record.get("tokens")
    if "copiedFrom" in record or "overridden" in record:
        source = record.get("copiedFrom")
        return CopiedAnswer(v=version, seq=seq, ask=seq, value=record["value"], tokens=tokens,
                            copied_from=source if isinstance(source, str) else None,
                            overridden=record.get("overridden") is True)
    return Answer(v=version, seq=seq, ask=seq, value=record["value"], tokens=tokens)


def _viewer_fields(record: dict[str, Any], line_no: int, malformed: list[tuple[int, str]]) -> dict[str, Any]:
    """A whole line's viewer fields that hold their type (times as floats); each other one is noted."""
    found: dict[str, Any] = {}
    for name in TEXT_FIELDS:
        value = record.get(name)
        if value is None:
            continue
        if name in ("started", "ended"):
            good = type(value) is int or type(value) is float
            value = float(value) if good else value
        elif name == "attempts":
            good = _count(value, 1)
        else:
            good = type(value) is str
        if good:
            found[name] = value
        else:
            malformed.append((line_no, name))
    return found


def _count(value: Any, least: int) -> bool:
    return type(value) is int and least <= value <= MAX_COUNT


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)

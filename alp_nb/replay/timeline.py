"""A run's timeline as data: one span per agent call (when it ran, in which phase, how it went, what it cost),
where each attempt began, the tokens of each phase, this attempt and in all, and the budget the run stands under.

It is built from a ``RunRecord``, journal first: the journal says when every call it holds was asked, how it
ended (answered, answered twice, failed, cancelled, or asked and never answered) and what each answer cost. The
events file adds what the journal cannot hold, the calls served from it again (``cached``), and, in files written
before the journal held failures (format 1), the failed and cancelled calls of journals without spend times. A
crash leaves the events file behind the journal; the calls it lacks are still drawn, from the journal, and
``note`` says so. The pictures in ``alp_nb.viz`` draw only this model.

Times are seconds on the run's own clock: from its first call, with the idle time between one attempt's end and
the next attempt's start left out (a run resumed the next morning would otherwise be one long gap);
``AttemptStart.idle_before`` says how much was left out. A run's files may come from someone else, so a time
that is missing or not a number places the call at its attempt's start, never anywhere else.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from math import isfinite
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeGuard

import numpy

from alp_nb.runtime.stored_events import AgentEvent, AsyncLaunched, CallsCached, RunEvent, TaskStarted

if TYPE_CHECKING:
    from alp_nb.runtime.snapshot import RunSnapshot

    from .record import RunRecord

CallOutcome = Literal["live", "retried", "cached", "failed", "cancelled", "unfinished"]
CALL_OUTCOMES: tuple[CallOutcome, ...] = ("live", "retried", "cached", "failed", "cancelled", "unfinished")
"""How a call went: answered once (``live``), answered twice after its first answer broke its schema
(``retried``), served from the journal (``cached``), ``failed``, ``cancelled`` (a sibling failed, or the run was
stopped), or ``unfinished`` (asked, and its attempt ended, or the process died, before it was answered)."""
NO_PHASE = "(no phase)"
"""The lane of calls made outside any phase."""
UNKNOWN_PHASE = "(phase not recorded)"
"""Tokens the snapshot counts that no journal line puts in a phase (journals written before phases were)."""
FAILED_REASONS = ("failed", "refused", "not JSON")
"""The spend-line reasons that end a call as failed (``retried`` does not: the call goes on)."""

RawSpan = tuple[int, str, str, str, float, float, CallOutcome, str, int | None]
"""A call on the wall clock: (attempt, key, label, phase, start, end, outcome, error, journal seq)."""


class CallSpan(NamedTuple):
    """One agent call: from ``start`` to ``end`` (seconds on the run's clock; equal for a cached call). A named
    tuple, not a dataclass: a long run has 100,000 of them, made in a fifth of the time."""

    key: str
    label: str
    phase: str
    start: float
    end: float
    outcome: CallOutcome
    tokens: int = 0
    """What the call cost in its attempt: every answer the runner handed back for it (0 when cached)."""
    attempt: int = 1
    error: str = ""
    """Why a failed call failed, as its journal line (or, in an old run, its event) says."""
    seq: int | None = None
    """The journal line of the call: the one that kept its answer (a cached call's, the one it was served from),
    that ended it, or that asked it."""


@dataclass(frozen=True)
class PhaseTokens:
    """The tokens spent under one phase: in the run's last attempt, and in all its attempts."""

    phase: str
    attempt: int
    cumulative: int


@dataclass(frozen=True)
class AttemptStart:
    """Where an attempt (a launch or a resume) begins on the run's clock, and the idle seconds left out before it."""

    number: int
    at: float
    idle_before: float = 0.0


@dataclass(frozen=True)
class Timeline:
    """A run's calls over time, its tokens by phase, and its budget: ``budget`` the tokens it stands under (None
    without one), ``spent`` what the budget counts of every attempt. ``note`` says what the source could not
    tell."""

    title: str
    spans: tuple[CallSpan, ...]
    tokens: tuple[PhaseTokens, ...] = ()
    attempts: tuple[AttemptStart, ...] = ()
    note: str = ""
    budget: int | None = None
    spent: int = 0

    @cached_property
    def phases(self) -> tuple[str, ...]:
        """Every phase once: those with tokens in their order, then the others as their calls first appear."""
        return tuple(dict.fromkeys([entry.phase for entry in self.tokens] + [span.phase for span in self.spans]))

    @cached_property
    def duration(self) -> float:
        return max((span.end for span in self.spans), default=0.0)


def record_timeline(record: RunRecord) -> Timeline:
    """The timeline of ``record``: its journal table's rows, the cached calls its events name, its budget."""
    journal = record.journal
    seqs = journal["seq"].tolist()
    rows = list(zip(seqs, journal["key"].tolist(), journal["kind"].astype(str).tolist(),
                    journal["label"].tolist(), _texts(journal["phase"]), _texts(journal["status"]),
                    journal["tokens"].tolist(), journal["started"].tolist(), journal["ended"].tolist(),
                    journal["error"].tolist(), list(map(attempt_finder(record.snapshot), seqs)), strict=True))
    spent: defaultdict[tuple[int, str], int] = defaultdict(int)
    cumulative: Counter[str] = Counter()
    this_attempt: Counter[str] = Counter()
    last = record.snapshot.attempts[-1].number if record.snapshot.attempts else 1
    phase_of: dict[str, str] = {}
    label_of: dict[str, str] = {}
    by_seq: dict[int, tuple[str, str, str]] = {}
    retried: set[tuple[int, str]] = set()
    for seq, key, kind, label, phase, status, tokens, _started, _ended, _error, attempt in rows:
        phase = phase or NO_PHASE
        if key not in phase_of:
            phase_of[key], label_of[key] = phase, label or key
        spent[attempt, key] += tokens
        cumulative[phase] += tokens
        if attempt == last:
            this_attempt[phase] += tokens
        if kind == "agent":
            by_seq[seq] = (key, label or key, phase)
        elif status == "retried":
            retried.add((attempt, key))
    raw = _journal_spans(rows, retried)
    events = record.events
    bounds: dict[int, tuple[float, float]] = {}
    raw += _event_spans(events, by_seq, phase_of, label_of, {(span[0], span[1]) for span in raw}, bounds)
    spans, attempts = _on_run_clock(raw, spent, bounds)
    spent_total = record.usage.cumulative.counted
    return Timeline(title=f"{record.snapshot.workflow_name} · {record.run_id} · {record.status}", spans=spans,
                    tokens=_phase_tokens(record.snapshot, cumulative, this_attempt), attempts=attempts,
                    note=_note(record, rows, events), budget=record.budget, spent=spent_total)


def attempt_finder(snapshot: RunSnapshot) -> Callable[[int | None], int]:
    """seq → the number of the attempt that wrote it (a line before the first attempt's, as a fork's copied lines
    and s16's, belongs to the first)."""
    attempts = sorted(snapshot.attempts, key=lambda attempt: attempt.first_seq)
    firsts = [attempt.first_seq for attempt in attempts]

    def attempt_of(seq: int | None) -> int:
        index = bisect_right(firsts, seq or 0) - 1
        return attempts[index].number if index >= 0 else (attempts[0].number if attempts else 1)

    return attempt_of


def _texts(column: Iterable[object]) -> list[str | None]:
    return [value if isinstance(value, str) else None for value in column]


def _journal_spans(rows: Sequence[tuple], retried: set[tuple[int, str]]) -> list[RawSpan]:
    """A span for each call line (answered once, or twice), each spend line that ended a call (failed or
    cancelled) and each call asked and never answered; a time the line lacks is left NaN for now."""
    raw: list[RawSpan] = []
    for seq, key, kind, label, phase, status, _tokens, started, ended, error, attempt in rows:
        if kind == "agent":
            outcome: CallOutcome = "retried" if (attempt, key) in retried else "live"
        elif kind == "ask":
            outcome, ended = "unfinished", math.nan
        elif status in FAILED_REASONS:
            outcome = "failed"
        elif status == "cancelled":
            outcome = "cancelled"
        else:
            continue  # a retried answer: its call goes on, on a line of its own
        timed_start = type(started) is float and isfinite(started)  # _time, inlined: it runs for every line
        timed_end = type(ended) is float and isfinite(ended)
        start = started if timed_start else ended if timed_end else math.nan
        end = ended if timed_end else start
        raw.append((attempt, key, label or key, phase or NO_PHASE, start, end, outcome,
                    error if isinstance(error, str) else (status if outcome == "failed" else ""), seq))
    return raw


def _event_spans(events: Sequence[RunEvent], by_seq: Mapping[int, tuple[str, str, str]],
                 phase_of: Mapping[str, str], label_of: Mapping[str, str], journaled: set[tuple[int, str]],
                 bounds: dict[int, tuple[float, float]]) -> list[RawSpan]:
    """What only the events say: the calls served from the journal (``calls_cached`` seqs, or format 1's cached
    events), and format 1's failed and cancelled calls that left no journal line in their attempt. ``bounds`` is
    filled with when each attempt's events began and ended (where it started, before its first call)."""
    raw: list[RawSpan] = []
    running: dict[str, float] = {}
    attempt, last_seq = 0, max(by_seq, default=0)
    for event in events:
        if isinstance(event, AsyncLaunched | TaskStarted):
            number = event.attempt if event.attempt is not None else attempt + isinstance(event, AsyncLaunched)
            if number != attempt:
                running.clear()
            attempt = max(number, 1)
        attempt = max(attempt, 1)
        if _time(event.ts):
            low, high = bounds.get(attempt, (event.ts, event.ts))
            bounds[attempt] = (min(low, event.ts), max(high, event.ts))
        if isinstance(event, CallsCached):
            for seq in event.served(last_seq):
                served = by_seq.get(seq)
                if served is not None:
                    raw.append((attempt, *served, event.ts, event.ts, "cached", "", seq))
        elif isinstance(event, AgentEvent):
            key, status = event.key, event.status
            label = event.label or label_of.get(key, key)
            phase = event.phase or phase_of.get(key, NO_PHASE)
            if status == "started":
                running[key] = event.ts
            elif status == "cached":
                raw.append((attempt, key, label, phase, event.ts, event.ts, "cached", "", None))
            elif status in ("failed", "cancelled") and (attempt, key) not in journaled:
                start = running.pop(key, event.ts)
                ended: CallOutcome = "failed" if status == "failed" else "cancelled"
                raw.append((attempt, key, label, phase, start, event.ts, ended, event.error or "", None))
    return raw


def _time(value: object) -> TypeGuard[float]:
    return type(value) is float and math.isfinite(value)


def _on_run_clock(raw: Sequence[RawSpan], spent: Mapping[tuple[int, str], int],
                  bounds: Mapping[int, tuple[float, float]]) -> tuple[tuple[CallSpan, ...], tuple[AttemptStart, ...]]:
    """Wall-clock spans moved onto the run's clock: each attempt starts where the one before it ended, an
    attempt's extent its events' and its calls' together. A span without a time sits at its attempt's start; an
    unfinished one runs to its attempt's end. A call's tokens go to its first span in its attempt. Worked out a
    column at a time (a run may hold 100,000 calls)."""
    if not raw:
        return (), ()
    numbers, which = numpy.unique(numpy.array([span[0] for span in raw]), return_inverse=True)
    starts = numpy.array([span[4] for span in raw], dtype=float)
    ends = numpy.array([span[5] for span in raw], dtype=float)
    timed_start, timed_end = numpy.isfinite(starts), numpy.isfinite(ends)
    low = numpy.array([bounds.get(number, (math.inf,))[0] for number in numbers.tolist()])
    high = numpy.array([bounds.get(number, (0.0, -math.inf))[1] for number in numbers.tolist()])
    for moments, timed in ((starts, timed_start), (ends, timed_end)):
        numpy.minimum.at(low, which[timed], moments[timed])
        numpy.maximum.at(high, which[timed], moments[timed])
    untimed = ~numpy.isfinite(low)
    low[untimed], high[untimed] = 0.0, 0.0
    starts_on_clock: list[AttemptStart] = []
    shift = numpy.empty(len(numbers))
    clock, previous_end = 0.0, None
    for index, number in enumerate(numbers.tolist()):
        idle = 0.0 if previous_end is None else max(float(low[index]) - previous_end, 0.0)
        starts_on_clock.append(AttemptStart(number, clock, idle))
        shift[index] = clock - low[index]
        clock += float(high[index] - low[index])
        previous_end = float(high[index])
    start = numpy.where(timed_start, starts, low[which])
    unfinished = numpy.array([span[6] == "unfinished" for span in raw])
    end = numpy.maximum(numpy.where(unfinished, high[which], numpy.where(timed_end, ends, start)), start)
    order = numpy.lexsort((numpy.array([span[8] or 0 for span in raw]), start)).tolist()
    start, end = (start + shift[which]).tolist(), (end + shift[which]).tolist()
    unpaid = dict(spent)
    spans = []
    for index in order:
        attempt, key, label, phase, _start, _end, outcome, error, seq = raw[index]
        spans.append(CallSpan(key, label, phase, start[index], end[index], outcome,
                              0 if outcome == "cached" else unpaid.pop((attempt, key), 0), attempt, error, seq))
    return tuple(spans), tuple(starts_on_clock)


def _phase_tokens(snapshot: RunSnapshot, cumulative: Counter[str], this_attempt: Counter[str]) -> tuple[
        PhaseTokens, ...]:
    """Tokens by phase, in the snapshot's phase order; what the snapshot counts beyond the journal's lines goes
    under ``UNKNOWN_PHASE``."""
    order = dict.fromkeys([phase.title for phase in snapshot.phases] + list(cumulative))
    rows = [PhaseTokens(phase, this_attempt[phase], cumulative[phase]) for phase in order]
    usage = snapshot.usage
    rest = (usage.attempt.tokens - sum(this_attempt.values()), usage.cumulative.tokens - sum(cumulative.values()))
    if rest[1] > 0:
        rows.append(PhaseTokens(UNKNOWN_PHASE, max(rest[0], 0), rest[1]))
    return tuple(rows)


def _note(record: RunRecord, rows: Sequence[tuple], events: Sequence[RunEvent]) -> str:
    """What the picture cannot tell: journal lines without times, or an events file that ends before the
    journal does. The calls it lacks are drawn from the journal; those a resume or a fork served from the journal
    after its end (their ``calls_cached`` line never written) cannot be, and only such an attempt is warned."""
    if rows and not any(_time(row[7]) or _time(row[8]) for row in rows):
        return ("the journal holds no times (an s16 run): its calls are shown in the order of their lines, at "
                "the start")
    last_event = max((event.ts for event in events), default=None)
    if last_event is None or record.status == "completed":
        return ""
    later = [row for row in rows if max(_clock(row[7]), _clock(row[8])) > last_event]
    if not later:
        return ""
    lines = "journal line" if len(later) == 1 else f"{len(later):,} journal lines"
    why = "has not caught up with" if record.status == "running" else "ends before"
    note = f"the events file {why} the last {lines}: every call is drawn from the journal"
    could_serve = record.snapshot.fork is not None or any(row[10] > 1 for row in later)  # row[10]: its attempt
    return note + (", but calls served from the journal after its end are not shown" if could_serve else "")


def _clock(value: object) -> float:
    return value if _time(value) else -math.inf

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
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, TypeGuard

import numpy
import pandas

from alp_nb.runtime.journal.outcomes import CALL_OUTCOMES as CALL_OUTCOMES, FAILED_REASONS, CallOutcome
from alp_nb.runtime.snapshot import run_budget
from alp_nb.runtime.stored_events import AgentEvent, AsyncLaunched, CallsCached, RunEvent, TaskStarted

if TYPE_CHECKING:
    from alp_nb.runtime.snapshot import RunSnapshot

NO_PHASE = "(no phase)"
"""The lane of calls made outside any phase."""
UNKNOWN_PHASE = "(phase not recorded)"
"""Tokens the snapshot counts that no journal line puts in a phase (journals written before phases were)."""
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


def timeline_from(journal: pandas.DataFrame, snapshot: RunSnapshot, events: Sequence[RunEvent]) -> Timeline:
    """The timeline of a run read by ``load_run``: its ``journal`` table's rows, the cached calls its ``events``
    name, its ``snapshot``'s budget and usage. Worked out a column at a time: a run may hold 100,000 calls."""
    lines = _Lines.of(journal, snapshot)
    tokens = pandas.Series(lines.tokens)
    spent = tokens.groupby(lines.pairs).sum()
    cumulative = Counter(tokens.groupby(lines.phase, sort=False).sum().to_dict())
    last = snapshot.attempts[-1].number if snapshot.attempts else 1
    this_attempt = Counter(tokens[lines.attempt == last].groupby(lines.phase[lines.attempt == last],
                                                                 sort=False).sum().to_dict())
    raw = _journal_spans(lines)
    bounds: dict[int, tuple[float, float]] = {}
    cached = _event_spans(events, lines, {(int(attempt), key) for attempt, key in zip(
        raw["attempt"].tolist(), raw["key"].tolist(), strict=True)} if _has_call_events(events) else set(), bounds)
    if cached:
        more = pandas.DataFrame(cached, columns=list(SPAN_COLUMNS))
        more["call"] = [lines.code_of(key) for key in more["key"].tolist()]
        raw = pandas.concat([raw, more], ignore_index=True)
    spans, attempts = _on_run_clock(raw, spent, lines, bounds)
    return Timeline(title=f"{snapshot.workflow_name} · {snapshot.run_id} · {snapshot.status}", spans=spans,
                    tokens=_phase_tokens(snapshot, cumulative, this_attempt), attempts=attempts,
                    note=_note(snapshot, lines, events), budget=run_budget(snapshot),
                    spent=snapshot.usage.cumulative.counted)


@dataclass(frozen=True)
class _Lines:
    """The journal table's columns as the timeline reads them: texts that are not strings are None, a missing
    phase is ``NO_PHASE`` and a missing label the call's key, and each line's attempt is known."""

    seq: numpy.ndarray
    key: numpy.ndarray
    kind: numpy.ndarray
    label: numpy.ndarray
    phase: numpy.ndarray
    status: numpy.ndarray
    tokens: numpy.ndarray
    started: numpy.ndarray
    ended: numpy.ndarray
    error: numpy.ndarray
    attempt: numpy.ndarray
    call: numpy.ndarray
    """Each line's call, as a number (a code for its key)."""
    keys: numpy.ndarray
    """The keys those numbers stand for."""

    @classmethod
    def of(cls, journal: pandas.DataFrame, snapshot: RunSnapshot) -> _Lines:
        seq = journal["seq"].to_numpy(dtype=numpy.int64)
        key = journal["key"].to_numpy(dtype=object)
        call, keys = pandas.factorize(key)
        label = numpy.array([text if type(text) is str and text else fallback
                             for text, fallback in zip(journal["label"].tolist(), key.tolist(), strict=True)],
                            dtype=object)
        phase = numpy.array([text if isinstance(text, str) else NO_PHASE for text in journal["phase"]], dtype=object)
        return cls(seq=seq, key=key, kind=journal["kind"].astype(str).to_numpy(dtype=object), label=label,
                   phase=phase, status=numpy.array(_texts(journal["status"]), dtype=object),
                   tokens=journal["tokens"].to_numpy(dtype=numpy.int64),
                   started=journal["started"].to_numpy(dtype=float), ended=journal["ended"].to_numpy(dtype=float),
                   error=journal["error"].to_numpy(dtype=object), attempt=_attempts_of(snapshot, seq),
                   call=call, keys=keys)

    @cached_property
    def _codes(self) -> dict[str, int]:
        return {key: code for code, key in enumerate(self.keys.tolist())}

    def code_of(self, key: str) -> int:
        """The number of call ``key``; a call no line holds (named only by an old event) gets one of its own."""
        return self._codes.setdefault(key, len(self._codes))

    @cached_property
    def pairs(self) -> numpy.ndarray:
        """Each line's (attempt, call) as one number."""
        return _pair(self.attempt, self.call)

    @cached_property
    def by_seq(self) -> dict[int, tuple[str, str, str]]:
        """Each call line's (key, label, phase), by seq: what a ``calls_cached`` event's seqs name."""
        calls = self.kind == "agent"
        return dict(zip(self.seq[calls].tolist(), zip(self.key[calls].tolist(), self.label[calls].tolist(),
                                                      self.phase[calls].tolist(), strict=True), strict=True))

    @cached_property
    def first_of(self) -> dict[str, tuple[str, str]]:
        """Each call's (label, phase), as its first line says: what a format-1 event that lacks them falls back
        on."""
        first: dict[str, tuple[str, str]] = {}
        for key, label, phase in zip(self.key.tolist(), self.label.tolist(), self.phase.tolist(), strict=True):
            first.setdefault(key, (label, phase))
        return first


def attempt_finder(snapshot: RunSnapshot) -> Callable[[int | None], int]:
    """seq → the number of the attempt that wrote it (a line before the first attempt's, as a fork's copied lines
    and s16's, belongs to the first)."""
    attempts = sorted(snapshot.attempts, key=lambda attempt: attempt.first_seq)
    firsts = [attempt.first_seq for attempt in attempts]

    def attempt_of(seq: int | None) -> int:
        index = bisect_right(firsts, seq or 0) - 1
        return attempts[index].number if index >= 0 else (attempts[0].number if attempts else 1)

    return attempt_of


def _attempts_of(snapshot: RunSnapshot, seqs: numpy.ndarray) -> numpy.ndarray:
    """``attempt_finder``'s answer for every seq of ``seqs`` at once."""
    attempts = sorted(snapshot.attempts, key=lambda attempt: attempt.first_seq)
    if not attempts:
        return numpy.ones(len(seqs), dtype=numpy.int64)
    firsts = numpy.array([attempt.first_seq for attempt in attempts])
    numbers = numpy.array([attempt.number for attempt in attempts], dtype=numpy.int64)
    return numbers[numpy.maximum(numpy.searchsorted(firsts, seqs, side="right") - 1, 0)]


def _pair(attempt: numpy.ndarray, call: numpy.ndarray) -> numpy.ndarray:
    """One number for each (attempt, call number) pair."""
    return attempt.astype(numpy.int64) * (1 << 40) + call.astype(numpy.int64)


def _texts(column: Iterable[object]) -> list[str | None]:
    return [value if isinstance(value, str) else None for value in column]


SPAN_COLUMNS = ("attempt", "key", "label", "phase", "start", "end", "outcome", "error", "seq")
"""A call on the wall clock, a column each (as ``RawSpan`` holds one)."""


def _journal_spans(lines: _Lines) -> pandas.DataFrame:
    """A span for each call line (answered once, or twice), each spend line that ended a call (failed or
    cancelled) and each call asked and never answered; a time the line lacks is left NaN for now."""
    kind, status = lines.kind, lines.status
    agent, ask = kind == "agent", kind == "ask"
    failed = ~agent & ~ask & pandas.Series(status).isin(FAILED_REASONS).to_numpy()
    cancelled = ~agent & ~ask & (status == "cancelled")
    retried_calls = (status == "retried") & ~agent & ~ask
    was_retried = numpy.isin(lines.pairs, lines.pairs[retried_calls])
    outcome = numpy.select([agent & was_retried, agent, ask, failed, cancelled],
                           ["retried", "live", "unfinished", "failed", "cancelled"], "")
    keep = outcome != ""  # a retried answer: its call goes on, on a line of its own
    ended = numpy.where(ask, math.nan, lines.ended)
    timed_start, timed_end = numpy.isfinite(lines.started), numpy.isfinite(ended)
    start = numpy.where(timed_start, lines.started, numpy.where(timed_end, ended, math.nan))
    end = numpy.where(timed_end, ended, start)
    told = numpy.array([isinstance(text, str) for text in lines.error], dtype=bool)
    error = numpy.where(told, lines.error, numpy.where(failed, status, ""))
    return pandas.DataFrame({"attempt": lines.attempt[keep], "key": lines.key[keep], "label": lines.label[keep],
                             "phase": lines.phase[keep], "start": start[keep], "end": end[keep],
                             "outcome": outcome[keep], "error": error[keep], "seq": lines.seq[keep],
                             "call": lines.call[keep]})


def _has_call_events(events: Sequence[RunEvent]) -> bool:
    """Events of format 1, which name each call: only they need to know which calls the journal holds."""
    return any(isinstance(event, AgentEvent) for event in events)


def _event_spans(events: Sequence[RunEvent], lines: _Lines, journaled: set[tuple[int, str]],
                 bounds: dict[int, tuple[float, float]]) -> list[RawSpan]:
    """What only the events say: the calls served from the journal (``calls_cached`` seqs, or format 1's cached
    events), and format 1's failed and cancelled calls that left no journal line in their attempt. ``bounds`` is
    filled with when each attempt's events began and ended (where it started, before its first call)."""
    raw: list[RawSpan] = []
    running: dict[str, float] = {}
    attempt, last_seq = 0, int(lines.seq.max()) if len(lines.seq) else 0
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
            by_seq = lines.by_seq
            for seq in event.served(last_seq):
                served = by_seq.get(seq)
                if served is not None:
                    raw.append((attempt, *served, event.ts, event.ts, "cached", "", seq))
        elif isinstance(event, AgentEvent):
            span = _call_event_span(event, attempt, lines, journaled, running)
            if span is not None:
                raw.append(span)
    return raw


def _call_event_span(event: AgentEvent, attempt: int, lines: _Lines, journaled: set[tuple[int, str]],
                     running: dict[str, float]) -> RawSpan | None:
    """A format 1 call event's span: a cached call, or a failed or cancelled one its attempt's journal lacks
    (from when it started, which ``running`` remembers)."""
    key, status = event.key, event.status
    label, phase = lines.first_of.get(key, (key, NO_PHASE))
    label, phase = event.label or label, event.phase or phase
    if status == "started":
        running[key] = event.ts
    elif status == "cached":
        return (attempt, key, label, phase, event.ts, event.ts, "cached", "", None)
    elif status in ("failed", "cancelled") and (attempt, key) not in journaled:
        start = running.pop(key, event.ts)
        ended: CallOutcome = "failed" if status == "failed" else "cancelled"
        return (attempt, key, label, phase, start, event.ts, ended, event.error or "", None)
    return None


def _time(value: object) -> TypeGuard[float]:
    return type(value) is float and math.isfinite(value)


def _on_run_clock(raw: pandas.DataFrame, spent: pandas.Series, lines: _Lines,
                  bounds: Mapping[int, tuple[float, float]]) -> tuple[tuple[CallSpan, ...], tuple[AttemptStart, ...]]:
    """Wall-clock spans moved onto the run's clock: each attempt starts where the one before it ended, an
    attempt's extent its events' and its calls' together. A span without a time sits at its attempt's start; an
    unfinished one runs to its attempt's end. A call's tokens (``spent``, by attempt and call) go to its first span
    in its attempt that was not served from the journal. Worked out a column at a time."""
    if not len(raw):
        return (), ()
    numbers, which = numpy.unique(raw["attempt"].to_numpy(dtype=numpy.int64), return_inverse=True)
    starts = raw["start"].to_numpy(dtype=float)
    ends = raw["end"].to_numpy(dtype=float)
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
    outcome = raw["outcome"].to_numpy(dtype=object)
    start = numpy.where(timed_start, starts, low[which])
    end = numpy.maximum(numpy.where(outcome == "unfinished", high[which], numpy.where(timed_end, ends, start)),
                        start)
    seqs = raw["seq"].to_numpy(dtype=object)
    order = numpy.lexsort((numpy.array([seq or 0 for seq in seqs.tolist()]), start))
    placed = raw.iloc[order].reset_index(drop=True)
    placed["attempt"] = placed["attempt"].astype(numpy.int64)
    pairs = _pair(placed["attempt"].to_numpy(), placed["call"].to_numpy())
    paid = numpy.flatnonzero(outcome[order] != "cached")
    first_paid = paid[numpy.unique(pairs[paid], return_index=True)[1]]
    tokens = numpy.zeros(len(placed), dtype=numpy.int64)
    tokens[first_paid] = spent.reindex(pairs[first_paid], fill_value=0).to_numpy()
    seq_column = [None if seq is None or seq != seq else int(seq) for seq in seqs[order].tolist()]
    spans = tuple(map(CallSpan._make, zip(
        placed["key"].tolist(), placed["label"].tolist(), placed["phase"].tolist(),
        (start + shift[which])[order].tolist(), (end + shift[which])[order].tolist(), outcome[order].tolist(),
        tokens.tolist(), placed["attempt"].tolist(), placed["error"].tolist(), seq_column, strict=True)))
    return spans, tuple(starts_on_clock)


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


def _note(snapshot: RunSnapshot, lines: _Lines, events: Sequence[RunEvent]) -> str:
    """What the picture cannot tell: journal lines without times, or an events file that ends before the
    journal does. The calls it lacks are drawn from the journal; those a resume or a fork served from the journal
    after its end (their ``calls_cached`` line never written) cannot be, and only such an attempt is warned."""
    timed = numpy.isfinite(lines.started) | numpy.isfinite(lines.ended)
    if len(timed) and not timed.any():
        return ("the journal holds no times (an s16 run): its calls are shown in the order of their lines, at "
                "the start")
    last_event = max((event.ts for event in events), default=None)
    if last_event is None or snapshot.status == "completed":
        return ""
    latest = numpy.fmax(numpy.nan_to_num(lines.started, nan=-math.inf), numpy.nan_to_num(lines.ended, nan=-math.inf))
    later = latest > last_event
    if not later.any():
        return ""
    count = int(later.sum())
    what = "journal line" if count == 1 else f"{count:,} journal lines"
    why = "has not caught up with" if snapshot.status == "running" else "ends before"
    note = f"the events file {why} the last {what}: every call is drawn from the journal"
    could_serve = snapshot.fork is not None or bool((lines.attempt[later] > 1).any())
    return note + (", but calls served from the journal after its end are not shown" if could_serve else "")



"""A run's timeline as data: one span per agent call (when it ran, in which phase, how it went, what it cost),
where each attempt began, and the tokens of each phase, this attempt and in all.

``timeline_of`` makes it from what a run leaves in its store: the events say when each call started and ended
and how (done, answered twice, served from the journal, failed, cancelled), the journal what every answer cost,
kept or not, and the snapshot which attempt is the last. The pictures draw only this model, so another reader
of runs (a replay, a comparison of two runs) can make a ``Timeline`` its own way and have it drawn the same.

Times are seconds on the run's own clock: from its first event, with the idle time between one attempt's last
event and the next attempt's first left out (a run resumed the next morning would otherwise be one long gap);
``AttemptStart.idle_before`` says how much was left out. A run's files may come from someone else, so an event
missing a field or holding one of the wrong type is skipped, never trusted.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from alp_nb.replay.record import RunRecord
from alp_nb.runtime.journal import JournalEntry, Spend
from alp_nb.runtime.run import WorkflowRun
from alp_nb.runtime.store import RunStore, StoredRun

if TYPE_CHECKING:
    from alp_nb.runtime.snapshot import RunSnapshot

CallOutcome = Literal["live", "retried", "cached", "failed", "cancelled", "unfinished"]
CALL_OUTCOMES: tuple[CallOutcome, ...] = ("live", "retried", "cached", "failed", "cancelled", "unfinished")
"""How a call went: answered once (``live``), answered twice after its first answer broke its schema
(``retried``), served from the journal (``cached``), ``failed``, ``cancelled`` (a sibling failed, or the run was
stopped), or ``unfinished`` (its attempt ended, or the process died, before it did)."""
NO_PHASE = "(no phase)"
"""The lane of calls made outside any phase."""
UNKNOWN_PHASE = "(phase not recorded)"
"""Tokens the snapshot counts that no journal line puts in a phase (journals written before phases were)."""

_ENDINGS: Mapping[str, CallOutcome] = {"done": "live", "failed": "failed", "cancelled": "cancelled"}
_LAUNCHES = ("async_launched", "task_started")
RawSpan = tuple[int, str, str, str, float, float, CallOutcome, str]
"""A call on the wall clock: (attempt, key, label, phase, start, end, outcome, error)."""
CallLine = tuple[int | None, str, str | None, str | None, int, float | None, float | None, bool]
"""A journaled call as the timeline needs it: (seq, key, label, phase, tokens, started, ended, answered twice)."""


@dataclass(frozen=True)
class CallSpan:
    """One agent call: from ``start`` to ``end`` (seconds on the run's clock; equal for a cached call)."""

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
    """Why a failed call failed, as its event says (a failed call leaves no journal line to ask)."""


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
    """A run's calls over time and its tokens by phase. ``note`` says what the source could not tell."""

    title: str
    spans: tuple[CallSpan, ...]
    tokens: tuple[PhaseTokens, ...] = ()
    attempts: tuple[AttemptStart, ...] = ()
    note: str = ""

    @cached_property
    def phases(self) -> tuple[str, ...]:
        """Every phase once: those with tokens in their order, then the others as their calls first appear."""
        return tuple(dict.fromkeys([entry.phase for entry in self.tokens] + [span.phase for span in self.spans]))

    @cached_property
    def duration(self) -> float:
        return max((span.end for span in self.spans), default=0.0)


def timeline_of(run: WorkflowRun | StoredRun | RunRecord | tuple[RunStore, str] | Timeline) -> Timeline:
    """The timeline of a run: a ``WorkflowRun`` (read back from the store its output file is in), a run in a store
    as ``(RunStore, run_id)``, a ``RunRecord`` (its journal table and its events, read once and kept on the
    record), or a ``StoredRun`` (its journal only: no events come with it, so cached, failed and cancelled calls
    are missing, and the note says so). A ``Timeline`` is returned as it is."""
    if isinstance(run, Timeline):
        return run
    if isinstance(run, WorkflowRun):
        return timeline_in(RunStore(Path(run.launched.output_file).parent), run.run_id)
    if isinstance(run, RunRecord):
        return record_timeline(run)
    if isinstance(run, StoredRun):
        return timeline_from(run.snapshot, run.journal)
    if isinstance(run, tuple) and len(run) == 2 and isinstance(run[0], RunStore) and isinstance(run[1], str):
        return timeline_in(*run)
    raise TypeError(f"no timeline of a {type(run).__name__}: give a WorkflowRun, a StoredRun, a RunRecord, "
                    "(RunStore, run_id) or a Timeline")


def timeline_in(store: RunStore, run_id: str) -> Timeline:
    """The timeline of run ``run_id`` in ``store``, from its snapshot, journal and events."""
    snapshot = store.snapshot(run_id)
    journal = store.read_journal(snapshot, keep_entries=True)
    return timeline_from(snapshot, journal.entries or (), journal.spends, store.read_events(run_id))


def record_timeline(record: RunRecord) -> Timeline:
    """The timeline of a ``RunRecord`` from what it holds: its journal table and its events (read once, on the
    first use of ``record.events``); a run with no events on disk (an s16 run) is drawn from its journal alone."""
    import numpy as np

    journal = record.journal
    calls = journal[journal["kind"] == "agent"]
    spends = journal[journal["kind"] == "spend"]
    retried = set(spends["key"][spends["status"] == "retried"].tolist())
    phases = calls["phase"].astype(object).where(calls["phase"].notna(), None).tolist()
    started = calls["started"].to_numpy(dtype=np.float64)
    ended = calls["ended"].to_numpy(dtype=np.float64)
    lines: list[CallLine] = [
        (seq, key, label, phase, tokens, None if math.isnan(start) else start, None if math.isnan(end) else end,
         key in retried)
        for seq, key, label, phase, tokens, start, end in zip(
            calls["seq"].tolist(), calls["key"].tolist(), calls["label"].tolist(), phases, calls["tokens"].tolist(),
            started.tolist(), ended.tolist(), strict=True)]
    spent = list(zip(spends["seq"].tolist(), spends["tokens"].tolist(), spends["key"].tolist(), strict=True))
    return _timeline(record.snapshot, lines, spent, record.events or None)


def timeline_from(snapshot: RunSnapshot, entries: Sequence[JournalEntry], spends: Iterable[Spend] = (),
                  events: Sequence[Mapping[str, Any]] | None = None) -> Timeline:
    """The one place a ``Timeline`` is made from a run's records. Without ``events``, the spans are the journal's
    calls at the times their lines give."""
    lines: list[CallLine] = [(entry.seq, entry.key, entry.label, entry.phase, entry.tokens, entry.started,
                              entry.ended, entry.attempts == 2) for entry in entries]
    return _timeline(snapshot, lines, spends, events)


def _timeline(snapshot: RunSnapshot, lines: Sequence[CallLine], spends: Iterable[Spend],
              events: Sequence[Mapping[str, Any]] | None) -> Timeline:
    attempt_of = _attempt_finder(snapshot)
    last = snapshot.attempts[-1].number if snapshot.attempts else 1
    phase_of = {line[1]: line[3] or NO_PHASE for line in lines}
    for event in events or ():
        key, phase = event.get("key"), event.get("phase")
        if event.get("type") == "workflow_agent" and isinstance(key, str) and isinstance(phase, str):
            phase_of.setdefault(key, phase)
    spent: defaultdict[tuple[int, str], int] = defaultdict(int)
    cumulative: Counter[str] = Counter()
    this_attempt: Counter[str] = Counter()
    paid = [(line[0], line[4], line[1]) for line in lines] + [(seq, tokens, key) for seq, tokens, key in spends]
    for seq, tokens, key in paid:
        attempt, phase = attempt_of(seq), phase_of.get(key, NO_PHASE)
        spent[attempt, key] += tokens
        cumulative[phase] += tokens
        if attempt == last:
            this_attempt[phase] += tokens
    if events is None:
        spans, attempts = _journal_spans(lines, attempt_of, spent)
        note = ("from the journal alone: it holds the calls that were answered, so cached, failed and cancelled "
                "calls are not shown; draw (RunStore, run_id) for them")
    else:
        spans, attempts = _event_spans(events, spent)
        note = ""
    return Timeline(title=f"{snapshot.workflow_name} · {snapshot.run_id} · {snapshot.status}", spans=spans,
                    tokens=_phase_tokens(snapshot, cumulative, this_attempt), attempts=attempts, note=note)


def _attempt_finder(snapshot: RunSnapshot) -> Callable[[int | None], int]:
    """seq → the number of the attempt that wrote it (a line without a seq, as s16's, belongs to the first)."""
    attempts = sorted(snapshot.attempts, key=lambda attempt: attempt.first_seq)
    firsts = [attempt.first_seq for attempt in attempts]

    def attempt_of(seq: int | None) -> int:
        index = bisect_right(firsts, seq or 0) - 1
        return attempts[index].number if index >= 0 else (attempts[0].number if attempts else 1)

    return attempt_of


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


def _journal_spans(lines: Sequence[CallLine], attempt_of: Callable[[int | None], int],
                   spent: Mapping[tuple[int, str], int]) -> tuple[tuple[CallSpan, ...], tuple[AttemptStart, ...]]:
    raw: list[RawSpan] = [
        (attempt_of(seq), key, label or key, phase or NO_PHASE, started, ended, "retried" if retried else "live", "")
        for seq, key, label, phase, _tokens, started, ended, retried in lines
        if started is not None and ended is not None]
    return _on_run_clock(raw, {}, spent)


def _event_spans(events: Sequence[Mapping[str, Any]], spent: Mapping[tuple[int, str], int]) -> tuple[
        tuple[CallSpan, ...], tuple[AttemptStart, ...]]:
    """Spans from ``workflow_agent`` events: started … done/failed/cancelled (retried if a ``retry`` came
    between), cached at its time, and unfinished when its attempt's events end first."""
    raw: list[RawSpan] = []
    bounds: dict[int, tuple[float, float]] = {}
    running: dict[str, tuple[float, str, str, bool]] = {}  # key: (start, label, phase, retried)
    attempt = 0

    def close_running() -> None:
        end = bounds[attempt][1] if attempt in bounds else 0.0
        raw.extend((attempt, key, label, phase, start, end, "unfinished", "")
                   for key, (start, label, phase, _) in running.items())
        running.clear()

    for event in events:
        ts = event.get("ts")
        if not _number(ts):
            continue
        if event.get("type") in _LAUNCHES:  # a launch or resume names its attempt; s16's did not
            number = event.get("attempt")
            if type(number) is not int:
                number = attempt + 1 if event.get("type") == "async_launched" else max(attempt, 1)
            if number != attempt:
                close_running()
                attempt = number
        attempt = max(attempt, 1)
        low, high = bounds.get(attempt, (ts, ts))
        bounds[attempt] = (min(low, ts), max(high, ts))
        call = _agent_call(event)
        if call is None:
            continue
        key, status, label, phase = call
        error = event.get("error")
        if status == "started":
            running[key] = (ts, label, phase, False)
        elif status == "retry" and key in running:
            running[key] = (*running[key][:3], True)
        elif status == "cached":
            raw.append((attempt, key, label, phase, ts, ts, "cached", ""))
        elif status in _ENDINGS:
            start, label, phase, retried = running.pop(key, (ts, label, phase, False))
            raw.append((attempt, key, label, phase, start, ts,
                        "retried" if retried and status == "done" else _ENDINGS[status],
                        error if status == "failed" and isinstance(error, str) else ""))
    close_running()
    return _on_run_clock(raw, bounds, spent)


def _agent_call(event: Mapping[str, Any]) -> tuple[str, str, str, str] | None:
    """(key, status, label, phase) of a ``workflow_agent`` event, or None for any other event or a malformed one."""
    key, status, label, phase = (event.get(field) for field in ("key", "status", "label", "phase"))
    if event.get("type") != "workflow_agent" or not isinstance(key, str) or not isinstance(status, str):
        return None
    return key, status, label if isinstance(label, str) else key, phase if isinstance(phase, str) else NO_PHASE


def _on_run_clock(raw: Sequence[RawSpan], bounds: Mapping[int, tuple[float, float]],
                  spent: Mapping[tuple[int, str], int]) -> tuple[tuple[CallSpan, ...], tuple[AttemptStart, ...]]:
    """Wall-clock spans moved onto the run's clock: each attempt starts where the one before it ended. An
    attempt's extent is its events' (or, with none, its spans'); a call's tokens go to its first span."""
    extents = dict(bounds)
    for attempt, *_, start, end, _outcome, _error in raw:
        low, high = extents.get(attempt, (start, end))
        extents[attempt] = (min(low, start), max(high, end))
    starts: list[AttemptStart] = []
    shift: dict[int, float] = {}
    clock, previous_end = 0.0, None
    for number in sorted(extents):
        low, high = extents[number]
        idle = 0.0 if previous_end is None else max(low - previous_end, 0.0)
        starts.append(AttemptStart(number, clock, idle))
        shift[number] = clock - low
        clock += high - low
        previous_end = high
    unpaid = dict(spent)
    spans = tuple(
        CallSpan(key, label, phase, start + shift[attempt], max(end, start) + shift[attempt], outcome,
                 0 if outcome == "cached" else unpaid.pop((attempt, key), 0), attempt, error)
        for attempt, key, label, phase, start, end, outcome, error in sorted(raw, key=lambda item: item[4]))
    return spans, tuple(starts)


def _number(value: Any) -> TypeGuard[float]:
    """A finite int or float that is not a bool: the only time a run's files are trusted to hold."""
    return type(value) in (int, float) and math.isfinite(value)

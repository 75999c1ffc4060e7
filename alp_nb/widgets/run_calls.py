"""A run's calls in the order they started, as a scrubber steps through them: how each went (the timeline's span)
joined to what its journal line holds (prompt, schema, value).

A run may have made a hundred thousand calls. Opening one reads the run once and indexes its calls by journal
seq, by label and by phase and outcome; a step then costs the same however long the run: ``call(index)`` makes
one ``RunCall`` when asked, ``find`` and ``done_before`` search the indexes. Nothing here runs anything.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from alp_nb.base.frozen import thaw
from alp_nb.replay.record import RunRecord
from alp_nb.runtime.journal import JournalEntry
from alp_nb.runtime.run import WorkflowRun
from alp_nb.runtime.store import RunStore, StoredRun
from alp_nb.viz.timeline import CALL_OUTCOMES, CallOutcome, CallSpan, Timeline, timeline_from, timeline_of

SHOWN_LINES = 64
"""How many whole journal lines of a ``RunRecord`` are kept once read (the calls around the cursor)."""
JOURNALED: tuple[CallOutcome, ...] = ("live", "retried", "cached")
"""The outcomes of calls whose answer is on a journal line (a cached call's from an earlier attempt)."""


@dataclass(frozen=True)
class RunCall:
    """One call: its ``position`` among the run's calls (from 1, in the order they started), how it went, and its
    journal line's prompt, schema and value (None when it has none: a call that failed, was cancelled or never
    ended keeps no answer). ``tokens`` is what it spent in its attempt (0 when ``cached``); ``answer_tokens`` what
    the answer on its journal line cost when it was made."""

    position: int
    span: CallSpan
    entry: JournalEntry | None

    @property
    def label(self) -> str:
        return self.span.label

    @property
    def phase(self) -> str:
        return self.span.phase

    @property
    def outcome(self) -> CallOutcome:
        return self.span.outcome

    @property
    def tokens(self) -> int:
        return self.span.tokens

    @property
    def error(self) -> str:
        return self.span.error

    @property
    def seq(self) -> int | None:
        return None if self.entry is None else self.entry.seq

    @property
    def prompt(self) -> str | None:
        return None if self.entry is None else self.entry.prompt

    @property
    def schema(self) -> Any:
        """As plain JSON (dicts and lists), like ``value``."""
        return None if self.entry is None else thaw(self.entry.schema_)

    @property
    def value(self) -> Any:
        return None if self.entry is None else thaw(self.entry.value)

    @property
    def answer_tokens(self) -> int | None:
        return None if self.entry is None else self.entry.tokens


class CallLines(Protocol):
    """Where a run's calls find their journal lines, by call key: the seq of a call's line, and the line itself
    (made only when a call is shown)."""

    def seq(self, key: str) -> int | None: ...

    def entry(self, key: str) -> JournalEntry | None: ...


class EntryLines:
    """The journal lines of a run read whole (``JournalEntry`` models, as a ``StoredRun`` holds them)."""

    def __init__(self, entries: Iterable[JournalEntry]) -> None:
        self._entries = {entry.key: entry for entry in entries}

    def seq(self, key: str) -> int | None:
        entry = self._entries.get(key)
        return None if entry is None else entry.seq

    def entry(self, key: str) -> JournalEntry | None:
        return self._entries.get(key)


class RecordLines:
    """The journal lines of a ``RunRecord``: seqs from its table, and a call's whole line (its schema too) made
    only when the call is shown (``RunRecord.entry``)."""

    def __init__(self, record: RunRecord) -> None:
        journal = record.journal
        rows = (journal["kind"] == "agent").to_numpy().nonzero()[0].tolist()
        keys, seqs = journal["key"].tolist(), journal["seq"].tolist()
        self._record = record
        self._rows = {keys[row]: row for row in rows}
        self._seqs = seqs
        self._shown: dict[int, JournalEntry] = {}
        """The lines last shown, by row (a move shows the call and its neighbours again)."""

    def seq(self, key: str) -> int | None:
        row = self._rows.get(key)
        return None if row is None else self._seqs[row]

    def entry(self, key: str) -> JournalEntry | None:
        row = self._rows.get(key)
        if row is None:
            return None
        entry = self._shown.get(row)
        if entry is None:
            if len(self._shown) >= SHOWN_LINES:
                self._shown.pop(next(iter(self._shown)))
            entry = self._shown[row] = self._record.entry(row)
        return entry


class RunCalls:
    """Every call of a run, by position (from 0 here; ``RunCall.position`` counts from 1), with its timeline.
    ``entries``: the run's journal lines, as ``JournalEntry`` models or as a ``CallLines`` lookup."""

    def __init__(self, timeline: Timeline, entries: Iterable[JournalEntry] | CallLines = ()) -> None:
        self.timeline = timeline
        self._spans = timeline.spans
        self._lines: CallLines = EntryLines(entries) if isinstance(entries, Iterable) else entries
        self._by_seq: defaultdict[int, list[int]] = defaultdict(list)
        self._by_label: defaultdict[str, list[int]] = defaultdict(list)
        self._by_outcome: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
        folded: list[str] = []
        self._starts: list[int] = []
        """Where each call's line starts in ``_labels``."""
        at = 0
        for index, span in enumerate(self._spans):
            seq = self._lines.seq(span.key) if span.outcome in JOURNALED else None
            if seq is not None:
                self._by_seq[seq].append(index)
            self._by_label[span.label].append(index)
            self._by_outcome[span.phase, span.outcome].append(index)
            folded.append(_folded(span.label))
            self._starts.append(at)
            at += len(folded[-1]) + 1
        self._labels = "\n".join(folded)
        """Every label case folded, each on a line of its own: looking for part of a label is one ``str.find``,
        however many calls."""
        self.phases = tuple(dict.fromkeys(span.phase for span in self._spans))
        """Each phase once, as its calls first appear."""
        self.totals = {phase: Counter({outcome: len(self._by_outcome[phase, outcome]) for outcome in CALL_OUTCOMES
                                       if (phase, outcome) in self._by_outcome}) for phase in self.phases}
        """How many calls of each outcome every phase made in all."""
        had = {outcome for _, outcome in self._by_outcome}
        self.outcomes = tuple(outcome for outcome in CALL_OUTCOMES if outcome in had)
        """The outcomes the run's calls had, in ``CALL_OUTCOMES`` order."""

    def __len__(self) -> int:
        return len(self._spans)

    def call(self, index: int) -> RunCall:
        span = self._spans[index]
        return RunCall(index + 1, span, self._entry(span))

    def find(self, text: str, after: int) -> int | None:
        """The index of the next call after ``after`` (round to the first after the last) that ``text`` names: the
        call on journal line ``text`` when it is a number, else one labelled ``text``, else one whose label holds it,
        case ignored; None if there is none."""
        text = text.strip()
        for indexes in (self._by_seq.get(int(text)) if re.fullmatch(r"[0-9]{1,18}", text) else None,
                        self._by_label.get(text)):
            if indexes:
                return indexes[bisect_right(indexes, after) % len(indexes)]
        needle = _folded(text)
        if not needle:
            return None
        starts = self._starts
        for begin in (starts[after + 1] if after + 1 < len(starts) else len(self._labels), 0):
            found = self._labels.find(needle, begin)
            if found >= 0:
                return bisect_right(starts, found) - 1
        return None

    def done_before(self, phase: str, upto: int) -> Counter[str]:
        """How many calls of each outcome ``phase`` had made among the first ``upto`` calls of the run."""
        return Counter({outcome: bisect_left(self._by_outcome[phase, outcome], upto)
                        for outcome in self.totals.get(phase, ())})

    def _entry(self, span: CallSpan) -> JournalEntry | None:
        return self._lines.entry(span.key) if span.outcome in JOURNALED else None


def _folded(text: str) -> str:
    return text.casefold().replace("\n", " ")


def run_calls(run: WorkflowRun | StoredRun | RunRecord | tuple[RunStore, str] | Timeline) -> RunCalls:
    """The calls of ``run``, given as ``timeline_of`` takes it. A run in a store is read once: its snapshot, events
    and journal; a ``RunRecord`` is not read again: its table gives the seqs, its events (read once, kept on it)
    the timeline, and only the call shown is made a whole journal line; a ``StoredRun`` has no events, so only its
    answered calls are there (its timeline says so); a ``Timeline`` has no journal, so no prompts or values."""
    if isinstance(run, RunRecord):
        return RunCalls(timeline_of(run), RecordLines(run))
    if isinstance(run, WorkflowRun):
        run = (RunStore(Path(run.launched.output_file).parent), run.run_id)
    if isinstance(run, tuple) and len(run) == 2 and isinstance(run[0], RunStore) and isinstance(run[1], str):
        store, run_id = run
        snapshot = store.snapshot(run_id)
        journal = store.read_journal(snapshot, keep_entries=True)
        entries = journal.entries or ()
        return RunCalls(timeline_from(snapshot, entries, journal.spends, store.read_events(run_id)), entries)
    return RunCalls(timeline_of(run), run.journal if isinstance(run, StoredRun) else ())

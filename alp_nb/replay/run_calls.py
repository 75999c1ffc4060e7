"""A run's calls in the order they started, as a viewer steps through and filters them: how each went (the
timeline's span) joined to its journal row (prompt, value, error).

A run may have made a hundred thousand calls. Opening one indexes its calls by journal seq, by label and by
phase and outcome; a step then costs the same however long the run: ``call(index)`` makes one ``RunCall`` when
asked, and the whole journal line (its schema too) only for the call shown. ``select`` filters by status,
phase, attempt and a pattern over label, prompt and value; the text it searches is made once, on first use.
Nothing here runs anything.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from alp_nb.base.frozen import thaw
from alp_nb.runtime.journal.entry import JournalEntry
from alp_nb.runtime.journal.outcomes import CALL_OUTCOMES, CallOutcome

from .timeline import CallSpan, Timeline

if TYPE_CHECKING:
    import pandas as pd

SHOWN_LINES = 64
"""How many whole journal lines are kept once read (the calls around the cursor)."""


@dataclass(frozen=True)
class RunCall:
    """One call: its ``position`` among the run's calls (from 1, in the order they started), how it went, and
    what its journal row holds (``prompt`` and ``value`` are None where the row has none: a call that failed, was
    cancelled or never ended keeps no answer). ``tokens`` is what it spent in its attempt (0 when ``cached``);
    ``answer_tokens`` what the answer on its journal line cost when it was made. ``entry`` is the whole line,
    schema included, made when asked."""

    position: int
    span: CallSpan
    prompt: str | None = None
    value: Any = None
    answer_tokens: int | None = None
    row_error: str | None = None
    _entry: JournalEntry | None = None

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
    def attempt(self) -> int:
        return self.span.attempt

    @property
    def error(self) -> str:
        return self.span.error or self.row_error or ""

    @property
    def seq(self) -> int | None:
        return self.span.seq

    @property
    def entry(self) -> JournalEntry | None:
        return self._entry

    @property
    def schema(self) -> Any:
        """As plain JSON (dicts and lists), like ``value``."""
        return None if self._entry is None else thaw(self._entry.schema_)


class RunCalls:
    """Every call of a run, by position (from 0 here; ``RunCall.position`` counts from 1): its ``timeline``'s calls,
    with their rows of the run's ``journal`` table and each row's whole line (``entry``, read when asked) where the
    run has them (a bare ``Timeline`` has none). ``RunRecord.calls`` gives a run's."""

    def __init__(self, timeline: Timeline, journal: pd.DataFrame | None = None,
                 entry: Callable[[int], JournalEntry] | None = None) -> None:
        self.timeline = timeline
        self._journal = journal
        self._read_entry = entry
        self._spans = self.timeline.spans
        self._rows: dict[int, int] = {}
        if self._journal is not None:
            self._rows = {seq: row for row, seq in enumerate(self._journal["seq"].tolist())}
        self._shown: dict[int, JournalEntry] = {}
        self._by_outcome: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
        for index, span in enumerate(self._spans):
            self._by_outcome[span.phase, span.outcome].append(index)
        self.phases = tuple(dict.fromkeys(span.phase for span in self._spans))
        """Each phase once, as its calls first appear."""
        self.totals = {phase: Counter({outcome: len(self._by_outcome[phase, outcome]) for outcome in CALL_OUTCOMES
                                       if (phase, outcome) in self._by_outcome}) for phase in self.phases}
        """How many calls of each outcome every phase made in all."""
        had = {outcome for _, outcome in self._by_outcome}
        self.outcomes = tuple(outcome for outcome in CALL_OUTCOMES if outcome in had)
        """The outcomes the run's calls had, in ``CALL_OUTCOMES`` order."""
        self.attempts = tuple(sorted({span.attempt for span in self._spans}))

    def __len__(self) -> int:
        return len(self._spans)

    def call(self, index: int, *, whole_line: bool = True) -> RunCall:
        """Call ``index`` with its journal row; ``whole_line=False`` leaves its whole line (``entry``, the schema)
        unread, for a list of many calls that shows none of it: no file is opened."""
        span = self._spans[index]
        row, journal = self._row(span), self._journal
        if row is None or journal is None:
            return RunCall(index + 1, span)
        prompt, value, tokens, error = (journal.at[row, name] for name in ("prompt", "value", "tokens", "error"))
        kept = span.outcome in ("live", "retried", "cached")
        return RunCall(index + 1, span, prompt if isinstance(prompt, str) else None, value if kept else None,
                       int(tokens) if kept else None, error if isinstance(error, str) else None,
                       self._entry(row) if whole_line else None)

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
        labels, starts = self._labels
        for begin in (starts[after + 1] if after + 1 < len(starts) else len(labels), 0):
            found = labels.find(needle, begin)
            if found >= 0:
                return bisect_right(starts, found) - 1
        return None

    def select(self, *, status: str | Iterable[str] | None = None, phase: str | Iterable[str] | None = None,
               attempt: int | Iterable[int] | None = None, pattern: str | None = None) -> list[int]:
        """The indexes of the calls that pass every filter given: ``status`` an outcome (``live``, ``retried``,
        ``cached``, ``failed``, ``cancelled``, ``unfinished``) or several, ``phase`` one or several, ``attempt`` a
        number or several, ``pattern`` text found in the label, prompt or value (case ignored)."""
        statuses, phases, attempts = _wanted(status), _wanted(phase), _wanted(attempt)
        if statuses is not None and not statuses <= set(CALL_OUTCOMES):
            from .errors import ReplayError

            raise ReplayError("INVALID_OPTION", f"status must be one of {', '.join(CALL_OUTCOMES)}, not "
                              f"{', '.join(sorted(map(str, statuses - set(CALL_OUTCOMES))))}")
        chosen: Iterable[int] = range(len(self._spans))
        if statuses is not None or phases is not None:
            chosen = sorted(index for (phase_name, outcome), indexes in self._by_outcome.items()
                            if (statuses is None or outcome in statuses) and (phases is None or phase_name in phases)
                            for index in indexes)
        spans = self._spans
        found = [index for index in chosen if attempts is None or spans[index].attempt in attempts]
        if pattern:
            matching = self._matching(_folded(pattern))
            found = [index for index in found if index in matching]
        return found

    def first(self, outcome: CallOutcome) -> int | None:
        """The index of the first call that ended ``outcome`` (the first failed call, say), None if none did."""
        indexes = sorted(index for (_, had), indexes in self._by_outcome.items() if had == outcome
                         for index in indexes)
        return indexes[0] if indexes else None

    def done_before(self, phase: str, upto: int) -> Counter[str]:
        """How many calls of each outcome ``phase`` had made among the first ``upto`` calls of the run."""
        return Counter({outcome: bisect_left(self._by_outcome[phase, outcome], upto)
                        for outcome in self.totals.get(phase, ())})

    @cached_property
    def _by_seq(self) -> dict[int, list[int]]:
        """Call indexes by journal seq (made on the first ``find``: a viewer that is never searched needs none)."""
        by_seq: defaultdict[int, list[int]] = defaultdict(list)
        for index, span in enumerate(self._spans):
            if span.seq is not None:
                by_seq[span.seq].append(index)
        return by_seq

    @cached_property
    def _by_label(self) -> dict[str, list[int]]:
        by_label: defaultdict[str, list[int]] = defaultdict(list)
        for index, span in enumerate(self._spans):
            by_label[span.label].append(index)
        return by_label

    @cached_property
    def _labels(self) -> tuple[str, list[int]]:
        """Every label case folded, each on a line of its own, and where each starts: looking for part of a label
        is one ``str.find``, however many calls."""
        return _joined(_folded(span.label) for span in self._spans)

    @cached_property
    def _texts(self) -> tuple[str, list[int]]:
        """Label, prompt and value of every call, case folded, one call a line (made on the first pattern, from
        the journal's columns read whole: a cell at a time would cost a second on a long run)."""
        journal = self._journal
        if journal is None:
            return self._labels
        prompts, values, rows = journal["prompt"].tolist(), journal["value"].tolist(), self._rows
        texts = []
        for span in self._spans:
            row = None if span.seq is None else rows.get(span.seq)
            if row is None:
                texts.append(_folded(span.label))
                continue
            prompt, value = prompts[row], values[row]
            texts.append(_folded(f"{span.label} {prompt if isinstance(prompt, str) else ''} {_searchable(value)}"))
        return _joined(texts)

    def _matching(self, needle: str) -> set[int]:
        text, starts = self._texts
        found, at = set(), text.find(needle)
        while at >= 0:
            index = bisect_right(starts, at) - 1
            found.add(index)
            next_line = starts[index + 1] if index + 1 < len(starts) else len(text)
            at = text.find(needle, next_line)
        return found

    def _row(self, span: CallSpan) -> int | None:
        return None if span.seq is None else self._rows.get(span.seq)

    def _entry(self, row: int) -> JournalEntry | None:
        entry = self._shown.get(row)
        if entry is None and self._read_entry is not None:
            if len(self._shown) >= SHOWN_LINES:
                self._shown.pop(next(iter(self._shown)))
            entry = self._shown[row] = self._read_entry(row)
        return entry


def _wanted(value: Any) -> set[Any] | None:
    if value is None:
        return None
    return {value} if isinstance(value, str | int) else set(value)


def _joined(texts: Iterable[str]) -> tuple[str, list[int]]:
    starts, parts, at = [], [], 0
    for text in texts:
        starts.append(at)
        parts.append(text)
        at += len(text) + 1
    return "\n".join(parts), starts


def _searchable(value: Any) -> str:
    """A journaled value as the search sees it: a string as itself, anything else as JSON, nothing as nothing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _folded(text: str) -> str:
    return text.casefold().replace("\n", " ")

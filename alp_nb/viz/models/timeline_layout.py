"""What a timeline picture draws and where, worked out once for its SVG, matplotlib and text forms alike.

Each phase is a lane (at most ``MAX_LANES``; later phases share a last lane), labelled with its phase, how many
calls it holds and the most of them that ran at once. A picture draws its calls in one of two views:

- **bars**: each call a bar from its start to its end, at least ``MIN_BAR`` pixels wide. Calls whose bars overlap
  stack into rows within their lane, at most ``MAX_ROWS`` (beyond that they share rows). A bar wide enough carries
  its label; a call that did not simply answer (``FLAGGED``) carries it always, beside the bar when the bar is too
  short for it.
- **counts** (calls over time): the time axis is cut into ``COLUMNS`` slices, one per pixel column, and each lane
  shows how many of its calls were running in each slice (a call counts in every slice it ran in), stacked by
  outcome and scaled to the lane's busiest slice. Each flagged call is a tick at its start (at most
  ``MAX_MARKS``, the failed first).

The rule: a picture counts when it has more than ``MAX_BARS`` calls, or more than ``FEW_CALLS`` whose median
duration maps to less than ``THINNEST`` pixel on the time axis (calls served from the journal take no time and are
left out of the median). Such bars are drawn wider than their calls and pile up into rows that say nothing of how
many ran at once; a count says it. Both views list the flagged calls by name under the picture (at most
``LISTED``, the others counted by outcome). The counts are made a column at a time with numpy: a hundred thousand
calls lay out in a few tens of milliseconds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from operator import itemgetter
from typing import Literal, NamedTuple

import numpy

from alp_nb.base.text import clip
from alp_nb.replay.timeline import UNKNOWN_PHASE, AttemptStart, CallSpan, PhaseTokens, Timeline
from alp_nb.runtime.journal.outcomes import CALL_OUTCOMES, CallOutcome

MAX_BARS = 2000
"""The most calls drawn as bars: a run with more is drawn as counts, and its SVG stays small however long it is."""
FEW_CALLS = 50
"""Up to this many calls are drawn as bars however short they are: each is still a mark to point at, where a count
of them would be columns of one."""
THINNEST = 1.0
"""The narrowest, in pixels, the median call may be on the time axis for its picture to draw bars."""
MAX_LANES = 40
"""The most phase lanes (and token rows) a picture has; the phases after them share one."""
MAX_ROWS = 8
"""The most rows of overlapping calls in one lane (the default concurrency)."""
PLOT_WIDTH = 640.0
"""The width of the time axis, in SVG pixels: with the lane labels beside it, a picture is 872 pixels wide, which the
800-pixel column of a 1,000-pixel window shows at 0.92 of its size, its 10-pixel text above 9 pixels. A
bar is never narrower than ``MIN_BAR`` of them."""
MIN_BAR = 3.0
COLUMNS = 640
"""The slices of the time axis the counts view counts calls in: one per pixel column."""
CHART_ROWS = 3
"""The height of a lane of counts, in rows of bars: room for the three lines of its label."""
LABEL_CHAR_WIDTH, LABEL_PAD = 6.0, 8.0
"""A call's label is written on its bar when the bar is this wide per character, plus the padding."""
MAX_LABELS = 200
"""The most bars labelled (those that did not answer first): the labels of a long run add nothing a tooltip
does not."""
FLAGGED: tuple[CallOutcome, ...] = ("failed", "unfinished", "cancelled", "retried")
"""The calls that did not simply answer, what an engineer looks for after a run, in the order they are listed:
their bars carry their labels however short, and the counts view marks each with a tick."""
MAX_MARKS = 200
"""The most flagged calls the counts view marks with a tick: enough to show where they fell."""
LISTED = 10
"""The flagged calls named one by one under the picture; the others are counted by outcome."""
LABEL_CHARS, PHASE_CHARS, ERROR_CHARS = 50, 30, 40
"""The most characters of a listed call's label, phase and error."""
BESIDE_CHARS = (12, 32)
"""The fewest and the most characters of a label written beside its bar (it runs to the next bar in its row, but
never shorter than the first: it then lies over its neighbour, on a white halo)."""
OUTCOME_STYLES: dict[CallOutcome, tuple[str, str]] = {
    "live": ("#1565c0", "answered"), "retried": ("#e65100", "answered twice (schema retry)"),
    "cached": ("#2e7d32", "from the journal"), "failed": ("#d32f2f", "failed"),
    "cancelled": ("#757575", "cancelled"), "unfinished": ("#8e24aa", "never ended"),
}
"""Each outcome's colour and what the legend says of it: blue and orange tell the usual apart for most eyes. A
cached call is a tick among bars (``TICK_WORDS``), not a bar, so it differs from a failure by shape as well."""
LABEL_CHARS = 30
"""The most characters of a lane's or a token row's label: 11 px text, about 6 px a character, in the label column
less its gap to the plot."""
TITLE_CHARS = 100
"""The most characters of the title: 14 px bold text, about 8.5 px a character, in the picture's width."""
CAPTION_CHARS = 148
"""The most characters of a line of the caption or of the list of calls: 11 px text, about 6 px a character."""
LANE_SHADES = ("#f7f9fc", "#ffffff")
"""The background of every other lane."""
TICK_WORDS = " (a tick)"
TOKEN_COLOURS = (("#3949ab", "this attempt"), ("#c5cae9", "all attempts"))
UNITS = ((1.0, 0.001, "ms"), (120.0, 1.0, "s"), (7200.0, 60.0, "min"), (math.inf, 3600.0, "h"))
"""(up to this many seconds, seconds per unit, the unit's name): the time axis counts in the first that fits."""
OUTCOME_INDEX = {outcome: index for index, outcome in enumerate(CALL_OUTCOMES)}
View = Literal["bars", "counts"]


@dataclass(frozen=True)
class Bar:
    """A call as drawn: its span and its row, counted from the top of the picture."""

    span: CallSpan
    row: int


@dataclass(frozen=True)
class Mark:
    """A flagged call as a tick in the counts view: its span and the index of its lane."""

    span: CallSpan
    lane: int


LabelPlace = Literal["inside", "after", "before"]


@dataclass(frozen=True)
class BarLabel:
    """A call's label as drawn: on its bar (``inside``), or beside it, right (``after``) or, near the plot's end,
    left (``before``), shortened to ``text``."""

    bar: Bar
    text: str
    place: LabelPlace


@dataclass(frozen=True)
class Lane:
    """A phase's band of rows: how many calls it holds, the most of them running at one moment, and in the counts
    view the most running in one slice of ``slice`` seconds."""

    phase: str
    first_row: int
    rows: int
    calls: int = 0
    at_once: int = 0
    busiest: int = 0
    slice: float = 0.0

    @property
    def count(self) -> str:
        """``2,000 calls``."""
        return f"{self.calls:,} call{'s' * (self.calls != 1)}" if self.calls else "no calls"

    def title(self, chars: int) -> str:
        """The first line of the lane's label, ``Review · 2,000 calls``, the phase cut to keep the count whole."""
        count = f" · {self.count}"
        return clip(self.phase, max(chars - len(count), 6)) + count

    @property
    def details(self) -> tuple[str, ...]:
        """The lines of its label after the title: how many ran at once, and in the counts view how many in its
        busiest slice."""
        if not self.calls:
            return ()
        at_once = ("all from the journal" if not self.at_once else "one at a time" if self.at_once == 1
                   else f"up to {self.at_once:,} at once")
        return (at_once, f"at most {self.busiest:,} per {seconds(self.slice)}") if self.busiest else (at_once,)

    @property
    def summary(self) -> str:
        """The whole label on one line, its tooltip."""
        return " · ".join((self.phase, self.count, *self.details))


@dataclass(frozen=True, eq=False)
class TimelineLayout:
    """The view, the bars or counts and the lanes to draw, the time axis (seconds) and the words around them."""

    view: View
    bars: tuple[Bar, ...]
    """The calls as bars (the bars view; none in the counts view)."""
    counts: numpy.ndarray
    """The counts view's calls running in each slice, by lane, outcome (``CALL_OUTCOMES`` order) and slice; empty
    in the bars view."""
    marks: tuple[Mark, ...]
    """The flagged calls ticked in the counts view (at most ``MAX_MARKS``); none in the bars view."""
    lanes: tuple[Lane, ...]
    rows: int
    duration: float
    unit: tuple[float, str]
    ticks: tuple[float, ...]
    outcomes: tuple[CallOutcome, ...]
    """The outcomes among the calls, in ``CALL_OUTCOMES`` order: the legend."""
    tokens: tuple[PhaseTokens, ...]
    labelled: tuple[BarLabel, ...]
    """The labels drawn: on every bar wide enough, and beside every short bar of a flagged call (at most
    ``MAX_LABELS``, those first)."""
    resumes: tuple[tuple[AttemptStart, str], ...]
    """Where each attempt after the first began (the picture draws a line there), and what it did."""
    caption: tuple[str, ...]
    listed: tuple[str, ...]
    """The flagged calls by name, ``failed: <label> (<phase>, attempt N, <duration>) · <error>``, then how many
    more of each outcome."""

    @cached_property
    def row_of(self) -> Mapping[CallSpan, int]:
        """The row of each call drawn, to find a call in the picture (a cursor) without searching every bar."""
        return {bar.span: bar.row for bar in self.bars}

    @property
    def legend(self) -> tuple[tuple[CallOutcome, str, bool], ...]:
        """(outcome, what the legend says of it, whether it is drawn as a tick) for each outcome among the calls:
        among bars, a cached call is a tick; counted, it is a part of a column like any other."""
        tick = self.view == "bars"
        return tuple((outcome, OUTCOME_STYLES[outcome][1] + TICK_WORDS * (tick and outcome == "cached"),
                      tick and outcome == "cached") for outcome in self.outcomes)


class _Columns(NamedTuple):
    """The calls a column at a time, for what is counted in bulk: each call's lane (an index into the lanes),
    outcome (into ``CALL_OUTCOMES``), attempt, start and end."""

    lane: numpy.ndarray
    outcome: numpy.ndarray
    attempt: numpy.ndarray
    start: numpy.ndarray
    end: numpy.ndarray


def timeline_layout(timeline: Timeline) -> TimelineLayout:
    """The calls to draw in their lanes, as bars or counts, the time axis, the legend, the token rows, the caption
    and the flagged calls by name."""
    spans = timeline.spans
    called = set(map(itemgetter(2), spans))  # the phases of the calls: the unattributed tokens' row is no lane
    lane_of = _lane_names([phase for phase in timeline.phases if phase != UNKNOWN_PHASE or phase in called])
    names = list(dict.fromkeys(lane_of.values()))
    calls = _calls(spans, lane_of, names)
    duration = max(timeline.duration, 0.001)
    view: View = "counts" if _drawn_as_counts(calls, duration) else "bars"
    in_lane = numpy.bincount(calls.lane, minlength=len(names)).tolist()
    at_once = _at_once(calls, len(names))
    flagged = _flagged(calls)
    bars: list[Bar] = []
    marks: tuple[Mark, ...] = ()
    counts = numpy.zeros((0, len(CALL_OUTCOMES), COLUMNS), dtype=int)
    cut = False
    if view == "bars":
        lanes, bars = _bar_lanes(spans, lane_of, names, in_lane, at_once, duration)
    else:
        counts = _counts(calls, len(names), duration)
        busiest = _busiest(counts)
        lanes = [Lane(name, index * CHART_ROWS, CHART_ROWS, in_lane[index], at_once[index], busiest[index],
                      duration / COLUMNS) for index, name in enumerate(names)]
        marks = tuple(Mark(spans[index], int(calls.lane[index])) for index in flagged[:MAX_MARKS].tolist())
        cut = _cut(counts, lanes)
    unit = next((per, name) for limit, per, name in UNITS if duration < limit)
    present = numpy.bincount(calls.outcome, minlength=len(CALL_OUTCOMES))
    return TimelineLayout(view=view, bars=tuple(bars), counts=counts, marks=marks, lanes=tuple(lanes),
                          rows=sum(lane.rows for lane in lanes), duration=duration, unit=unit,
                          ticks=_ticks(duration, unit[0]),
                          outcomes=tuple(o for o, n in zip(CALL_OUTCOMES, present.tolist(), strict=True) if n),
                          tokens=_token_rows(timeline.tokens), labelled=_labels(bars, duration),
                          resumes=_resumes(timeline, calls),
                          caption=_caption(timeline, calls, view, duration, len(flagged), cut),
                          listed=_listed(spans, calls, flagged))


def _calls(spans: Sequence[CallSpan], lane_of: Mapping[str, str], names: Sequence[str]) -> _Columns:
    """The columns of ``spans``, read a field at a time (a hundred thousand calls in milliseconds)."""
    count = len(spans)
    lane_index = {phase: names.index(lane) for phase, lane in lane_of.items()}

    def column(field: int, dtype: type, lookup: Mapping | None = None) -> numpy.ndarray:
        values = map(itemgetter(field), spans)
        return numpy.fromiter(map(lookup.__getitem__, values) if lookup else values, dtype, count)

    return _Columns(column(2, numpy.intp, lane_index), column(5, numpy.intp, OUTCOME_INDEX),
                    column(7, numpy.intp), column(3, float), column(4, float))


def _drawn_as_counts(calls: _Columns, duration: float) -> bool:
    """Whether the calls are drawn as counts: more than ``MAX_BARS``, or more than ``FEW_CALLS`` whose median
    duration (of those that ran: a cached call takes none) is under ``THINNEST`` pixel."""
    if len(calls.start) > MAX_BARS:
        return True
    ran = calls.outcome != OUTCOME_INDEX["cached"]
    if ran.sum() <= FEW_CALLS:
        return False
    return float(numpy.median(calls.end[ran] - calls.start[ran])) / duration * PLOT_WIDTH < THINNEST


def _at_once(calls: _Columns, lanes: int) -> list[int]:
    """The most calls of each lane running at one moment, a call running from its start until its end (one that
    ends as another starts is not running with it, and one that took no time runs at its start; a cached call was
    never run and is left out). At each start, the calls started by then less those ended by then."""
    ran = calls.outcome != OUTCOME_INDEX["cached"]
    ends = numpy.maximum(calls.end, numpy.nextafter(calls.start, math.inf))
    peaks = []
    for lane in range(lanes):
        mine = ran & (calls.lane == lane)
        starts = numpy.sort(calls.start[mine])
        running = numpy.arange(1, len(starts) + 1) - numpy.searchsorted(numpy.sort(ends[mine]), starts, "right")
        peaks.append(int(running.max(initial=0)))
    return peaks


def _counts(calls: _Columns, lanes: int, duration: float) -> numpy.ndarray:
    """The calls running in each slice, by lane, outcome and slice: a call counts in every slice from its start's
    to its end's. One step up where each call starts and one down after it ends, summed along the slices."""
    width = duration / COLUMNS
    first = numpy.clip((calls.start / width).astype(numpy.intp), 0, COLUMNS - 1)
    last = numpy.clip((calls.end / width).astype(numpy.intp), first, COLUMNS - 1)
    row = (calls.lane * len(CALL_OUTCOMES) + calls.outcome) * (COLUMNS + 1)
    size = lanes * len(CALL_OUTCOMES) * (COLUMNS + 1)
    steps = numpy.bincount(row + first, minlength=size) - numpy.bincount(row + last + 1, minlength=size)
    return numpy.cumsum(steps.reshape(lanes, len(CALL_OUTCOMES), COLUMNS + 1), axis=2)[:, :, :COLUMNS]


def _busiest(counts: numpy.ndarray) -> list[int]:
    """Each lane's most calls running in one slice, of the calls that ran (when any did): a resume serves every
    call it can from the journal in a moment, and a lane scaled to that moment would flatten the calls that ran."""
    cached = OUTCOME_INDEX["cached"]
    ran = numpy.delete(counts, cached, axis=1).sum(axis=1).max(axis=1, initial=0)
    return numpy.where(ran > 0, ran, counts[:, cached].max(axis=1, initial=0)).tolist()


def _cut(counts: numpy.ndarray, lanes: Sequence[Lane]) -> bool:
    """Whether any column of the counts view is cut at its lane's top: calls from the journal above the busiest
    slice of the calls that ran."""
    return any(int(lane_counts.sum(axis=0).max(initial=0)) > lane.busiest for lane_counts, lane in
               zip(counts, lanes, strict=True))


def _flagged(calls: _Columns) -> numpy.ndarray:
    """The indices of the flagged calls, in ``FLAGGED`` order, each outcome's in time order."""
    rank = numpy.array([FLAGGED.index(o) if o in FLAGGED else len(FLAGGED) for o in CALL_OUTCOMES])[calls.outcome]
    chosen = numpy.flatnonzero(rank < len(FLAGGED))
    return chosen[numpy.lexsort((calls.start[chosen], rank[chosen]))]


def _bar_lanes(spans: Sequence[CallSpan], lane_of: Mapping[str, str], names: Sequence[str], in_lane: Sequence[int],
               at_once: Sequence[int], duration: float) -> tuple[list[Lane], list[Bar]]:
    """Each lane with its bars in rows, laid from the top."""
    by_lane: dict[str, list[CallSpan]] = {name: [] for name in names}
    for span in sorted(spans, key=lambda span: span.start):
        by_lane[lane_of[span.phase]].append(span)
    lanes, bars, first_row = [], [], 0
    for index, (name, lane_spans) in enumerate(by_lane.items()):
        rows = _rows(lane_spans, duration * MIN_BAR / PLOT_WIDTH)
        bars += [Bar(span, first_row + row) for span, row in zip(lane_spans, rows, strict=True)]
        lanes.append(Lane(name, first_row, max(rows, default=0) + 1, in_lane[index], at_once[index]))
        first_row += lanes[-1].rows
    return lanes, bars


def _labels(bars: Sequence[Bar], duration: float) -> tuple[BarLabel, ...]:
    """The label of every flagged bar, beside it when it is too short, then of every other bar wide enough for
    it whose bar no label beside a flagged bar lies over."""
    def x(at: float) -> float:
        return at / duration * PLOT_WIDTH

    by_row: dict[int, list[Bar]] = {}
    for bar in sorted(bars, key=lambda bar: bar.span.start):
        by_row.setdefault(bar.row, []).append(bar)
    flagged: list[BarLabel] = []
    others: list[BarLabel] = []
    covered: list[tuple[int, float, float]] = []  # (row, left, right) of each label beside a bar
    for row, row_bars in by_row.items():
        for index, bar in enumerate(row_bars):
            span = bar.span
            start, end = x(span.start), max(x(span.end), x(span.start) + MIN_BAR)
            if span.outcome != "cached" and end - start >= len(span.label) * LABEL_CHAR_WIDTH + LABEL_PAD:
                (flagged if span.outcome in FLAGGED else others).append(BarLabel(bar, span.label, "inside"))
            elif span.outcome in FLAGGED:
                following = x(row_bars[index + 1].span.start) if index + 1 < len(row_bars) else PLOT_WIDTH
                preceding = max((x(other.span.end) for other in row_bars[:index]), default=0.0)
                after, before = following - end - LABEL_PAD, start - preceding - LABEL_PAD
                place: LabelPlace = "after" if after >= BESIDE_CHARS[0] * LABEL_CHAR_WIDTH or after >= before \
                    else "before"
                room = int((after if place == "after" else before) // LABEL_CHAR_WIDTH)
                text = clip(span.label, min(max(room, BESIDE_CHARS[0]), BESIDE_CHARS[1]))
                width = len(text) * LABEL_CHAR_WIDTH + LABEL_PAD
                covered.append((row, end, end + width) if place == "after" else (row, start - width, start))
                flagged.append(BarLabel(bar, text, place))
    others = [label for label in others if not any(
        row == label.bar.row and left < x(label.bar.span.end) and x(label.bar.span.start) < right
        for row, left, right in covered)]
    return tuple(sorted((flagged + others)[:MAX_LABELS], key=lambda label: label.bar.span.start))


def _resumes(timeline: Timeline, calls: _Columns) -> tuple[tuple[AttemptStart, str], ...]:
    """Each attempt after the first, with what its calls did (``attempt 2 · 10 cached``): a resume served from the
    journal takes a moment, so its calls are a thin column the words explain."""
    resumes = []
    for start in timeline.attempts[1:]:
        counts = numpy.bincount(calls.outcome[calls.attempt == start.number], minlength=len(CALL_OUTCOMES))
        did = _outcome_words(counts)
        resumes.append((start, f"attempt {start.number} · {did or 'no calls'}"))
    return tuple(resumes)


def _outcome_words(counts: numpy.ndarray) -> str:
    """``1,990 live, 10 failed``: how many calls of each outcome, from their count in ``CALL_OUTCOMES`` order."""
    return ", ".join(f"{n:,} {outcome}" for outcome, n in zip(CALL_OUTCOMES, counts.tolist(), strict=True) if n)


def _lane_names(phases: Sequence[str]) -> dict[str, str]:
    """Each phase's lane: its own for the first ``MAX_LANES - 1``, one shared by all the others."""
    if len(phases) <= MAX_LANES:
        return {phase: phase for phase in phases}
    shared = f"{len(phases) - MAX_LANES + 1} more phases"
    return {phase: phase if index < MAX_LANES - 1 else shared for index, phase in enumerate(phases)}


def _rows(spans: Sequence[CallSpan], narrowest: float) -> list[int]:
    """A row for each span (sorted by start): the first row free at its start, or, once ``MAX_ROWS`` are taken,
    the one that frees first. A span takes at least ``narrowest`` seconds, so instant calls do not pile up."""
    ends: list[float] = []
    rows = []
    for span in spans:
        end = max(span.end, span.start + narrowest)
        row = next((index for index, free in enumerate(ends) if free <= span.start), None)
        if row is None:
            if len(ends) < MAX_ROWS:
                ends.append(end)
                rows.append(len(ends) - 1)
                continue
            row = min(range(len(ends)), key=ends.__getitem__)
        ends[row] = max(ends[row], end)
        rows.append(row)
    return rows


def _ticks(duration: float, per_unit: float) -> tuple[float, ...]:
    """Round times (1, 2 or 5 times a power of ten of the unit) from 0 to ``duration``, five to ten of them."""
    rough = duration / per_unit / 5
    power = 10 ** math.floor(math.log10(rough))
    step = next(each * power for each in (1, 2, 5, 10) if each * power >= rough) * per_unit
    count = int(duration / step + 1e-9)
    return tuple(index * step for index in range(count + 1))


def _token_rows(tokens: Sequence[PhaseTokens]) -> tuple[PhaseTokens, ...]:
    """The token rows, the phases beyond ``MAX_LANES - 1`` summed into one (the unattributed row kept last)."""
    named = [row for row in tokens if row.phase != UNKNOWN_PHASE]
    unknown = [row for row in tokens if row.phase == UNKNOWN_PHASE]
    if len(named) + len(unknown) <= MAX_LANES:
        return tuple(tokens)
    kept, rest = named[: MAX_LANES - 1 - len(unknown)], named[MAX_LANES - 1 - len(unknown):]
    merged = PhaseTokens(f"{len(rest)} more phases", sum(row.attempt for row in rest),
                         sum(row.cumulative for row in rest))
    return (*kept, merged, *unknown)


def _caption(timeline: Timeline, calls: _Columns, view: View, duration: float, flagged: int, cut: bool) -> tuple[
        str, ...]:
    """What the run did, in one line; the idle time left out of the axis; how to read the view; the note."""
    count, attempts = len(calls.start), len(timeline.attempts)
    kinds = _outcome_words(numpy.bincount(calls.outcome, minlength=len(CALL_OUTCOMES)))
    lines = [(f"{count:,} calls ({kinds}) over {seconds(timeline.duration)}" if count else "no agent calls")
             + (f" in {attempts} attempts" if attempts > 1 else "")]
    lines += [f"attempt {start.number} began after {seconds(start.idle_before)} idle, left out of the time axis"
              for start in timeline.attempts if start.idle_before >= 1.0]
    if view == "bars" and count:
        lines.append(f"Each bar is a call from its start to its end (at least {MIN_BAR:g} px wide); overlapping bars "
                     f"stack in rows, at most {MAX_ROWS} a lane.")
    elif view == "counts":
        lines += _counts_words(calls, duration, flagged, cut)
    if timeline.note:
        lines.append(timeline.note)
    return tuple(lines)


def _counts_words(calls: _Columns, duration: float, flagged: int, cut: bool) -> list[str]:
    """How to read the counts view, and why the picture counts rather than draws its calls."""
    ran = calls.outcome != OUTCOME_INDEX["cached"]
    median = float(numpy.median(calls.end[ran] - calls.start[ran])) if ran.any() else 0.0
    width = median / duration * PLOT_WIDTH
    why = (f"Too many calls to draw one by one (more than {MAX_BARS:,})" if len(calls.start) > MAX_BARS else
           f"Calls too short to draw one by one (the median lasts {seconds(median)}, {width:.2g} px on this axis)")
    lines = [f"{why}, so each lane counts them over time:",
             f"how many of its calls were running in each {seconds(duration / COLUMNS)} slice (one pixel column), "
             "stacked by how they went, scaled to its busiest slice."]
    if cut:
        lines.append("A resume serves its calls from the journal in a moment: their columns are cut at the top of the "
                     "lane, whose scale is the calls that ran.")
    if flagged:
        ticked = "" if flagged <= MAX_MARKS else f" (the first {MAX_MARKS} of {flagged:,})"
        lines.append(f"A tick marks each failed, unfinished, cancelled or retried call{ticked}; they are listed "
                     "under the picture.")
    return lines


def _listed(spans: Sequence[CallSpan], calls: _Columns, flagged: numpy.ndarray) -> tuple[str, ...]:
    """The first ``LISTED`` flagged calls by name, then how many more of each flagged outcome."""
    named = [spans[index] for index in flagged[:LISTED].tolist()]
    lines = [call_words(span) for span in named]
    if len(flagged) > LISTED:
        rest = Counter(dict(zip(CALL_OUTCOMES, numpy.bincount(calls.outcome[flagged],
                                                              minlength=len(CALL_OUTCOMES)).tolist(), strict=True)))
        rest.subtract(span.outcome for span in named)
        lines.append(f"and {len(flagged) - LISTED:,} more: "
                     + ", ".join(f"{rest[outcome]:,} {outcome}" for outcome in FLAGGED if rest[outcome]))
    return tuple(lines)


def stacked(counts: numpy.ndarray, busiest: int, room: float, least: float) -> numpy.ndarray:
    """The top of each outcome's part of each column of a lane's ``counts`` (outcomes by slices), stacked from 0 in
    ``CALL_OUTCOMES`` order and scaled so that the busiest slice is ``room`` high; a part that holds any call is at
    least ``least`` high (a lone failure among thousands of answers still shows), the whole never above ``room``."""
    heights = numpy.where(counts > 0, numpy.maximum(counts * (room / max(busiest, 1)), least), 0.0)
    return numpy.minimum(numpy.cumsum(heights, axis=0), room)


def call_words(span: CallSpan) -> str:
    """A flagged call in a line: ``failed: verify (Verify, attempt 1, 100 ms) · TimeoutError``."""
    error = f" · {clip(span.error, ERROR_CHARS)}" if span.error else ""
    return (f"{span.outcome}: {clip(span.label, LABEL_CHARS)} ({clip(span.phase, PHASE_CHARS)}, attempt "
            f"{span.attempt}, {seconds(span.end - span.start)}){error}")


def seconds(value: float) -> str:
    """A duration in the unit that reads best: ``0.42 ms``, ``3.1 s``, ``12 min``, ``5.5 h``."""
    per, name = next((per, name) for limit, per, name in UNITS if value < limit)
    return f"{value / per:.3g} {name}"

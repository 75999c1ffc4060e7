"""What a timeline picture draws and where, worked out once for the SVG and the matplotlib renderers alike.

A run can make a hundred thousand calls, and a picture of that many bars is neither readable nor small. So at
most ``MAX_BARS`` calls are drawn: every failed, unfinished and cancelled one (what an engineer looks for after a
run; up to half the bars), then an even sample over time of the others, which keeps the run's shape and each phase and
outcome in proportion; the caption counts, per phase, the calls left out. A bar wide enough carries its call's
label; a call that did not answer (failed, cancelled, never ended) carries it always, beside the bar when the
bar is too short for it. Each phase is a lane (at most
``MAX_LANES``; later phases share a last lane), and calls that overlap in time, as ``parallel`` makes them, go to
rows within their lane, at most ``MAX_ROWS`` (beyond that they share rows).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from alp_nb.replay.timeline import (
    CALL_OUTCOMES,
    UNKNOWN_PHASE,
    AttemptStart,
    CallOutcome,
    CallSpan,
    PhaseTokens,
    Timeline,
)

from .geometry import clip

MAX_BARS = 2000
"""The most calls a picture draws: the SVG then stays under half a megabyte however long the run."""
MAX_LANES = 40
"""The most phase lanes (and token rows) a picture has; the phases after them share one."""
MAX_ROWS = 8
"""The most rows of overlapping calls in one lane (the default concurrency)."""
PLOT_WIDTH = 760.0
"""The width of the time axis, in SVG pixels; a bar is never narrower than ``MIN_BAR`` of them."""
MIN_BAR = 3.0
LABEL_CHAR_WIDTH, LABEL_PAD = 6.0, 8.0
"""A call's label is written on its bar when the bar is this wide per character, plus the padding."""
MAX_LABELS = 200
"""The most bars labelled (those that did not answer first): the labels of a long run add nothing a tooltip
does not."""
FLAGGED: tuple[CallOutcome, ...] = ("failed", "cancelled", "unfinished")
"""The outcomes whose bars carry their label however short they are: what an engineer looks for."""
BESIDE_CHARS = (12, 32)
"""The fewest and the most characters of a label written beside its bar (it runs to the next bar in its row, but
never shorter than the first: it then lies over its neighbour, on a white halo)."""
CAPTION_PHASES = 4
"""Phases the caption names when counting the calls left out."""
ALWAYS_DRAWN: tuple[CallOutcome, ...] = ("failed", "unfinished", "cancelled")
"""The outcomes drawn before any sample is taken (up to half of ``MAX_BARS``)."""
OUTCOME_STYLES: dict[CallOutcome, tuple[str, str]] = {
    "live": ("#1565c0", "answered"), "retried": ("#e65100", "answered twice (schema retry)"),
    "cached": ("#2e7d32", "from the journal (a tick)"), "failed": ("#d32f2f", "failed"),
    "cancelled": ("#757575", "cancelled"), "unfinished": ("#8e24aa", "never ended"),
}
"""Each outcome's colour and what the legend says of it: blue and orange tell the usual apart for most eyes, and a
cached call is a tick, not a bar, so it differs from a failure by shape as well as colour."""
TOKEN_COLOURS = (("#3949ab", "this attempt"), ("#c5cae9", "all attempts"))
UNITS = ((1.0, 0.001, "ms"), (120.0, 1.0, "s"), (7200.0, 60.0, "min"), (math.inf, 3600.0, "h"))
"""(up to this many seconds, seconds per unit, the unit's name): the time axis counts in the first that fits."""


@dataclass(frozen=True)
class Bar:
    """A call as drawn: its span and its row, counted from the top of the picture."""

    span: CallSpan
    row: int


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
    """A phase's band of rows."""

    phase: str
    first_row: int
    rows: int


@dataclass(frozen=True)
class TimelineLayout:
    """The bars and lanes to draw, the time axis (seconds) and the words around them."""

    bars: tuple[Bar, ...]
    lanes: tuple[Lane, ...]
    rows: int
    duration: float
    unit: tuple[float, str]
    ticks: tuple[float, ...]
    outcomes: tuple[CallOutcome, ...]
    """The outcomes among the drawn calls, in ``CALL_OUTCOMES`` order: the legend."""
    tokens: tuple[PhaseTokens, ...]
    labelled: tuple[BarLabel, ...]
    """The labels drawn: on every bar wide enough, and beside every short bar of a call that did not answer (at
    most ``MAX_LABELS``, those first)."""
    resumes: tuple[tuple[AttemptStart, str], ...]
    """Where each attempt after the first began (the picture draws a line there), and what it did."""
    caption: tuple[str, ...]

    @cached_property
    def row_of(self) -> Mapping[CallSpan, int]:
        """The row of each call drawn, to find a call in the picture (a cursor) without searching every bar."""
        return {bar.span: bar.row for bar in self.bars}


def timeline_layout(timeline: Timeline) -> TimelineLayout:
    """The calls to draw in their lanes and rows, the time axis, the legend, the token rows and the caption."""
    called = {span.phase for span in timeline.spans}  # the unattributed tokens' row is no lane of calls
    lane_of = _lane_names([phase for phase in timeline.phases if phase != UNKNOWN_PHASE or phase in called])
    drawn, left_out = _chosen(timeline.spans)
    duration = max(timeline.duration, 0.001)
    by_lane: dict[str, list[CallSpan]] = {name: [] for name in dict.fromkeys(lane_of.values())}
    for span in sorted(drawn, key=lambda span: span.start):
        by_lane[lane_of[span.phase]].append(span)
    lanes, bars, first_row = [], [], 0
    for name, lane_spans in by_lane.items():
        rows = _rows(lane_spans, duration * MIN_BAR / PLOT_WIDTH)
        bars += [Bar(span, first_row + row) for span, row in zip(lane_spans, rows, strict=True)]
        lanes.append(Lane(name, first_row, max(rows, default=0) + 1))
        first_row += lanes[-1].rows
    unit = next((per, name) for limit, per, name in UNITS if duration < limit)
    present = {bar.span.outcome for bar in bars}
    labelled = _labels(bars, duration)
    return TimelineLayout(bars=tuple(bars), lanes=tuple(lanes), rows=first_row, duration=duration, unit=unit,
                          ticks=_ticks(duration, unit[0]), outcomes=tuple(o for o in CALL_OUTCOMES if o in present),
                          tokens=_token_rows(timeline.tokens), labelled=tuple(labelled),
                          resumes=_resumes(timeline),
                          caption=_caption(timeline, left_out, lane_of))


def _chosen(spans: Sequence[CallSpan]) -> tuple[list[CallSpan], list[CallSpan]]:
    """(the spans drawn, the spans left out): all of them up to ``MAX_BARS``; beyond, the failed, unfinished and
    cancelled ones first (in that order, up to half), then every n-th of the others in time order."""
    if len(spans) <= MAX_BARS:
        return list(spans), []
    first = sorted((span for span in spans if span.outcome in ALWAYS_DRAWN),
                   key=lambda span: ALWAYS_DRAWN.index(span.outcome))[: MAX_BARS // 2]
    chosen = {id(span) for span in first}
    others = sorted((span for span in spans if id(span) not in chosen), key=lambda span: span.start)
    room = MAX_BARS - len(first)
    picks = {round(index * (len(others) - 1) / max(room - 1, 1)) for index in range(room)}
    drawn = first + [others[index] for index in sorted(picks)]
    taken = {id(span) for span in drawn}
    return drawn, [span for span in spans if id(span) not in taken]


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


def _resumes(timeline: Timeline) -> tuple[tuple[AttemptStart, str], ...]:
    """Each attempt after the first, with what its calls did (``attempt 2 · 10 cached``): a resume served from the
    journal takes a moment, so its calls are a thin column of ticks the words explain."""
    if len(timeline.attempts) < 2:
        return ()
    counts: dict[int, Counter[str]] = {}
    for span in timeline.spans:
        counts.setdefault(span.attempt, Counter())[span.outcome] += 1
    resumes = []
    for start in timeline.attempts[1:]:
        calls = counts.get(start.number, Counter())
        did = ", ".join(f"{calls[outcome]:,} {outcome}" for outcome in CALL_OUTCOMES if calls[outcome])
        resumes.append((start, f"attempt {start.number} · {did or 'no calls'}"))
    return tuple(resumes)


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


def _caption(timeline: Timeline, left_out: Sequence[CallSpan], lane_of: dict[str, str]) -> tuple[str, ...]:
    spans = timeline.spans
    counts = Counter(span.outcome for span in spans)
    attempts = len(timeline.attempts)
    kinds = ", ".join(f"{counts[outcome]:,} {outcome}" for outcome in CALL_OUTCOMES if counts[outcome])
    lines = [(f"{len(spans):,} calls ({kinds}) over {seconds(timeline.duration)}" if spans else "no agent calls")
             + (f" in {attempts} attempts" if attempts > 1 else "")]
    lines += [f"attempt {start.number} began after {seconds(start.idle_before)} idle, left out of the time axis"
              for start in timeline.attempts if start.idle_before >= 1.0]
    if left_out:
        lines.append(f"drew {len(spans) - len(left_out):,} of {len(spans):,} calls: the failed, unfinished and "
                     "cancelled, then an even sample over time; not drawn:")
        lines += _counted_per_lane(left_out, lane_of)
    if timeline.note:
        lines.append(timeline.note)
    return tuple(lines)


def _counted_per_lane(spans: Sequence[CallSpan], lane_of: dict[str, str]) -> list[str]:
    """A line for each of the first ``CAPTION_PHASES`` lanes: how many of ``spans`` it has, of which outcomes."""
    per_lane: dict[str, Counter[str]] = {lane: Counter() for lane in dict.fromkeys(lane_of.values())}
    for span in spans:
        per_lane[lane_of[span.phase]][span.outcome] += 1
    per_lane = {lane: counts for lane, counts in per_lane.items() if counts}
    lines = [f"{lane}: {sum(counts.values()):,} ({', '.join(f'{n:,} {o}' for o, n in counts.most_common())})"
             for lane, counts in list(per_lane.items())[:CAPTION_PHASES]]
    if len(per_lane) > CAPTION_PHASES:
        lines.append(f"and {len(per_lane) - CAPTION_PHASES} more phases")
    return lines


def seconds(value: float) -> str:
    """A duration in the unit that reads best: ``0.42 ms``, ``3.1 s``, ``12 min``, ``5.5 h``."""
    per, name = next((per, name) for limit, per, name in UNITS if value < limit)
    return f"{value / per:.3g} {name}"

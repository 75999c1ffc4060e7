"""A run's timeline as SVG in pure Python: a lane per phase over a time axis, holding its calls as bars or, for
calls too many or too short to draw one by one, as counts over time (``timeline_layout`` says which and why); then
the calls that did not simply answer, by name, and the tokens of each phase, this attempt and in all.

As in ``svg.py``: text stays ``<text>``, every string passes through ``xml_text`` (a run's labels, phases and errors
come from a script, or from a store someone else wrote), colours are attributes, and the document is well-formed
XML. Each bar, tick and lane of counts carries its call or its lane in a ``<title>``, the tooltip a browser shows on
hover, and each text cut to fit carries its whole. Bars are grouped by outcome, so their colour is written once per
group, and counts are one path per lane and outcome: a picture of a hundred thousand calls weighs tens of kilobytes.
The picture is 872 pixels wide, to fit a notebook's column (see ``PLOT_WIDTH``), and no text is smaller than 10
pixels.

``cursor_svg`` draws a cursor on one call in a picture of the same size and nothing else, to be laid over the
timeline: a viewer stepping through a hundred thousand calls moves the cursor without drawing the timeline again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy

from alp_nb.base.text import clip
from alp_nb.replay.timeline import CallSpan
from alp_nb.runtime.journal.outcomes import CALL_OUTCOMES
from alp_nb.viz.models.palette import FAINT_INK, INK
from alp_nb.viz.models.timeline_layout import (
    CAPTION_CHARS,
    COLUMNS,
    LABEL_CHARS,
    LANE_SHADES,
    MIN_BAR,
    OUTCOME_STYLES,
    PLOT_WIDTH,
    TITLE_CHARS,
    TOKEN_COLOURS,
    BarLabel,
    Lane,
    Mark,
    TimelineLayout,
    seconds,
    stacked,
)
from alp_nb.viz.renderers.svg import FONT, xml_text

MARGIN = 14.0
LABEL_WIDTH = 190.0
"""The column of lane labels left of the plot: with the plot and the margins, the picture is 872 pixels wide."""
TOOLTIP_CHARS = 200
SUMMARY_CHARS = 70
"""What is said of a resumed attempt beside its line: about half the plot's width."""
ROW, BAR, TICK = 16.0, 11.0, 2.0
LANE_GAP = 6.0
LINE = 15.0
LABEL_LINE = 13.0
"""The distance between the lines of a lane's label."""
LISTED_TITLE = "Calls that failed, never ended, were cancelled or were retried"
TOKEN_ROW, TOKEN_BAR = 24.0, 9.0
TOKEN_WIDTH = PLOT_WIDTH * 0.8
"""The longest token bar, leaving room for its number."""
MIN_COLUMN = 1.0
"""The least height, in pixels, of an outcome's part of a column that holds any of its calls: a lone failure among
thousands of answers still shows."""
MARK_ROOM = 7.0
"""The strip at the top of a lane of counts, above its busiest slice, where each flagged call's tick has its head:
a tick stands out there even over columns of its own colour."""
AXIS = "#bbbbbb"
CURSOR, HALO = "#111111", "#ffffff"
"""The cursor: a dark outline with a white halo, never a fill, which would change the colour of the bar it marks
(amber over a failed call's red reads as a retried call's orange)."""


@dataclass(frozen=True)
class Frame:
    """Where a timeline picture's parts sit: its size, the left edge of the plot, the top of each lane's band
    followed by the bottom of the last one (the time axis), and the tops of the list of calls and of the tokens."""

    width: int
    height: int
    left: float
    lane_tops: tuple[float, ...]
    listed_top: float
    tokens_top: float


def timeline_frame(layout: TimelineLayout) -> Frame:
    """The frame of ``layout``'s picture, worked out without drawing it."""
    tops = [MARGIN + 22 + LINE * len(layout.caption) + 44]
    for lane in layout.lanes:
        tops.append(tops[-1] + lane.rows * ROW + LANE_GAP)
    listed_top = tops[-1] + 44
    tokens_top = listed_top + (LINE * (len(layout.listed) + 1) + 26 if layout.listed else 0)
    tokens_bottom = tokens_top + 10 + TOKEN_ROW * max(len(layout.tokens), 1)
    left = MARGIN + LABEL_WIDTH
    return Frame(round(left + PLOT_WIDTH + 2 * MARGIN), round(tokens_bottom + MARGIN), left, tuple(tops), listed_top,
                 tokens_top)


def timeline_svg(title: str, layout: TimelineLayout) -> str:
    """The picture as one ``<svg>`` element: title, caption, legend, lanes over the time axis, the calls that did
    not simply answer, tokens by phase."""
    frame = timeline_frame(layout)
    shown = clip(title, TITLE_CHARS)
    parts = [_fitted(MARGIN, MARGIN + 14, title, TITLE_CHARS, 14, INK, ' font-weight="600"')]
    y = MARGIN + 22
    for line in layout.caption:
        y += LINE
        parts.append(_fitted(MARGIN, y, line, CAPTION_CHARS, 11, FAINT_INK))
    parts.append(_legend(layout, MARGIN, y + 10))
    calls = _bars(layout, frame) if layout.view == "bars" else _counts(layout, frame)
    return (f'{_svg_open(frame)} font-family="{FONT}" font-size="12" role="img" aria-label="{xml_text(shown)}">'
            f"{_tooltip(title)}{''.join(parts)}{_lanes(layout, frame)}{calls}{_axis(layout, frame)}"
            f"{_listed(layout, frame.listed_top)}{_tokens(layout, frame.left, frame.tokens_top)}</svg>")


def cursor_svg(layout: TimelineLayout, span: CallSpan) -> str:
    """A picture the size of ``span``'s timeline holding only a cursor on it, to lay over the timeline: a line at
    the call's start across every lane, and a box around its bar, or around its time in its lane when the timeline
    counts its calls. It ignores the pointer, so the tooltips under it still show."""
    frame = timeline_frame(layout)
    lane_index, row = _place_of(layout, span)
    lane = layout.lanes[lane_index]
    top = frame.lane_tops[lane_index]
    if row is None:
        y, height = top, lane.rows * ROW + LANE_GAP
    else:
        y, height = top + LANE_GAP / 2 + (row - lane.first_row) * ROW, ROW
    start = _x(layout, frame.left, span.start)
    width = max(_x(layout, frame.left, span.end) - start, TICK)
    lanes_top, axis = frame.lane_tops[0], frame.lane_tops[-1]
    return (f'{_svg_open(frame, ";pointer-events:none")} aria-hidden="true">'
            f'<path d="M{start},{round(lanes_top - 8, 1)}V{round(axis, 1)}" stroke="{CURSOR}" stroke-opacity="0.55"/>'
            f'<path d="M{start - 5},{round(lanes_top - 14, 1)}h10l-5,6z" fill="{CURSOR}"/>'
            f'<g fill="none"><rect x="{round(start - 3, 1)}" y="{round(y - 1, 1)}" width="{round(width + 6, 1)}" '
            f'height="{round(height + 2, 1)}" rx="2" stroke="{HALO}" stroke-width="4"/>'
            f'<rect x="{round(start - 3, 1)}" y="{round(y - 1, 1)}" width="{round(width + 6, 1)}" '
            f'height="{round(height + 2, 1)}" rx="2" stroke="{CURSOR}" stroke-width="2"/></g></svg>')


FIT = "max-width:100%;height:auto"
"""A picture never wider than its container: in a narrow window it scales down whole, so the cursor laid over it
(which scales alike) stays in view instead of past a scroll edge."""


def _svg_open(frame: Frame, style: str = "") -> str:
    """The opening of an ``<svg>`` element of the frame's size that scales down to fit (``FIT``, then ``style``),
    left open for more attributes."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{frame.width}" height="{frame.height}" '
            f'viewBox="0 0 {frame.width} {frame.height}" style="{FIT}{style}"')


def _place_of(layout: TimelineLayout, span: CallSpan) -> tuple[int, int | None]:
    """The index of ``span``'s lane, and its bar's row if the picture drew it as a bar. A phase without a lane of
    its own shares the last one."""
    row = layout.row_of.get(span)
    for index, lane in enumerate(layout.lanes):
        if (lane.first_row <= row < lane.first_row + lane.rows) if row is not None else lane.phase == span.phase:
            return index, row
    return len(layout.lanes) - 1, None


def _text(x: float, y: float, content: str, size: float, fill: str, extra: str = "", whole: str = "") -> str:
    """A ``<text>`` element, ``content`` escaped; with ``whole``, grouped with the full text it shortens as its
    tooltip."""
    text = (f'<text x="{round(x, 1)}" y="{round(y, 1)}" font-size="{size}" fill="{fill}"{extra}>'
            f"{xml_text(content)}</text>")
    return f"<g>{_tooltip(whole)}{text}</g>" if whole else text


def _fitted(x: float, y: float, content: str, chars: int, size: float, fill: str, extra: str = "") -> str:
    """``content`` cut to ``chars`` characters, with its whole as a tooltip when it was cut."""
    shown = clip(content, chars)
    return _text(x, y, shown, size, fill, extra, content if shown != " ".join(content.split()) else "")


def _tooltip(text: str) -> str:
    return f"<title>{xml_text(clip(text, TOOLTIP_CHARS))}</title>"


def _x(layout: TimelineLayout, left: float, at: float) -> float:
    return round(left + at / layout.duration * PLOT_WIDTH, 1)


def _legend(layout: TimelineLayout, x: float, y: float) -> str:
    """A swatch per outcome among the calls: a bar, or for a cached call among bars a tick."""
    parts = []
    for outcome, meaning, tick in layout.legend:
        colour = OUTCOME_STYLES[outcome][0]
        parts.append(f'<rect x="{x + 5}" y="{y}" width="{TICK + 0.4}" height="14" fill="{colour}"/>' if tick else
                     f'<rect x="{x}" y="{y + 2}" width="14" height="{BAR}" fill="{colour}"/>')
        parts.append(_text(x + 19, y + 11, meaning, 10.5, FAINT_INK))
        x += 19 + len(meaning) * 6 + 18
    return "".join(parts)


def _lanes(layout: TimelineLayout, frame: Frame) -> str:
    """The lane bands with their labels, and a line where each later attempt began (under the calls, which stay
    readable where an attempt began)."""
    parts, left, top, y = [], frame.left, frame.lane_tops[0], frame.lane_tops[-1]
    for index, (lane, lane_top) in enumerate(zip(layout.lanes, frame.lane_tops[:-1], strict=True)):
        height = lane.rows * ROW + LANE_GAP
        parts.append(f'<rect x="{left}" y="{round(lane_top, 1)}" width="{PLOT_WIDTH}" height="{height}" '
                     f'fill="{LANE_SHADES[index % 2]}"/>' + _lane_label(lane, left - 8, lane_top, height))
    for start, summary in layout.resumes:
        x = _x(layout, left, start.at)
        near_end = x > left + PLOT_WIDTH * 0.85  # the words read leftward there, inside the page
        parts.append(f'<path d="M{x},{round(top - 14, 1)}V{round(y, 1)}" stroke="{FAINT_INK}" '
                     'stroke-dasharray="4,3"/>'
                     + _text(x - 3 if near_end else x + 3, top - 4, clip(summary, SUMMARY_CHARS), 10, FAINT_INK,
                             ' text-anchor="end"' if near_end else ""))
    return "".join(parts)


def _lane_label(lane: Lane, right: float, top: float, height: float) -> str:
    """A lane's label, right-aligned at ``right`` and centred on its band: its title, then as many of its details
    as the band has room for; its whole label is its tooltip."""
    lines = [lane.title(LABEL_CHARS), *lane.details][: max(int((height - 4) // LABEL_LINE), 1)]
    first = top + height / 2 + 4 - LABEL_LINE * (len(lines) - 1) / 2
    texts = [_text(right, first + index * LABEL_LINE, line, 11 if index == 0 else 10, INK if index == 0 else FAINT_INK,
                   ' text-anchor="end"') for index, line in enumerate(lines)]
    return f"<g>{_tooltip(lane.summary)}{''.join(texts)}</g>"


def _bars(layout: TimelineLayout, frame: Frame) -> str:
    """The bars, a group per outcome, and the labels that fit on or beside them."""
    row_y, parts = {}, []
    for lane, lane_top in zip(layout.lanes, frame.lane_tops, strict=False):
        row_y.update({lane.first_row + row: lane_top + LANE_GAP / 2 + row * ROW for row in range(lane.rows)})
    for outcome, (colour, _) in OUTCOME_STYLES.items():
        bars = [_bar(layout, frame.left, bar.span, row_y[bar.row]) for bar in layout.bars
                if bar.span.outcome == outcome]
        if bars:
            parts.append(f'<g fill="{colour}">{"".join(bars)}</g>')
    labels = "".join(_label(layout, frame.left, label, row_y) for label in layout.labelled)
    return "".join(parts) + f'<g pointer-events="none">{labels}</g>'


def _counts(layout: TimelineLayout, frame: Frame) -> str:
    """Each lane's calls over time, its tooltip over them, then a tick on each flagged call."""
    parts = []
    for lane, top, counts in zip(layout.lanes, frame.lane_tops, layout.counts, strict=False):
        if lane.busiest:
            parts.append(f'<g shape-rendering="crispEdges">{_tooltip(lane.summary)}'
                         f"{_columns(frame.left, top + LANE_GAP / 2 + lane.rows * ROW, lane, counts)}</g>")
    for outcome in CALL_OUTCOMES:
        marks = [_mark(layout, frame, mark) for mark in layout.marks if mark.span.outcome == outcome]
        if marks:
            parts.append(f'<g fill="{OUTCOME_STYLES[outcome][0]}">{"".join(marks)}</g>')
    return "".join(parts)


def _columns(left: float, bottom: float, lane: Lane, counts: numpy.ndarray) -> str:
    """A lane's columns, one path a pixel wide per outcome, stacked up from ``bottom`` (``stacked``)."""
    width = PLOT_WIDTH / COLUMNS
    tops = stacked(counts, lane.busiest, lane.rows * ROW - MARK_ROOM, MIN_COLUMN)
    xs = (left + (numpy.arange(COLUMNS) + 0.5) * width).round(1).tolist()
    paths, below = [], numpy.zeros(COLUMNS)
    for outcome, above in zip(CALL_OUTCOMES, tops, strict=True):
        shown = numpy.flatnonzero(above > below).tolist()
        if shown:
            lows, highs = (bottom - below).round(1).tolist(), (bottom - above).round(1).tolist()
            steps = "".join(f"M{xs[at]},{lows[at]}V{highs[at]}" for at in shown)
            paths.append(f'<path d="{steps}" stroke="{OUTCOME_STYLES[outcome][0]}" stroke-width="{width:g}"/>')
        below = above
    return "".join(paths)


def _mark(layout: TimelineLayout, frame: Frame, mark: Mark) -> str:
    """A flagged call's tick at its start: a head in the strip atop its lane, a line down through the columns, and
    its tooltip."""
    top, bottom = frame.lane_tops[mark.lane] + LANE_GAP / 2, frame.lane_tops[mark.lane + 1] - LANE_GAP / 2
    x = _x(layout, frame.left, mark.span.start)
    return (f'<path d="M{round(x - 3.5, 1)},{round(top, 1)}h7l-3,{MARK_ROOM - 1:g}V{round(bottom, 1)}h-1'
            f'V{round(top + MARK_ROOM - 1, 1)}z">{_tooltip(_call(mark.span))}</path>')


def _axis(layout: TimelineLayout, frame: Frame) -> str:
    """The time axis under the lanes, with its ticks."""
    left, top, y = frame.left, frame.lane_tops[0], frame.lane_tops[-1]
    parts = [f'<path d="M{left},{round(top, 1)}V{round(y, 1)}H{left + PLOT_WIDTH}" fill="none" stroke="{AXIS}"/>']
    per, unit = layout.unit
    for at in layout.ticks:
        x = _x(layout, left, at)
        parts.append(f'<path d="M{x},{round(y, 1)}v4" stroke="{AXIS}"/>'
                     + _text(x, y + 16, f"{at / per:g} {unit}", 10, FAINT_INK, ' text-anchor="middle"'))
    return "".join(parts)


def _label(layout: TimelineLayout, left: float, label: BarLabel, row_y: Mapping[int, float]) -> str:
    """A label on its bar in white, or beside it in ink on a white halo (it may lie over a neighbour's bar)."""
    span, y = label.bar.span, row_y[label.bar.row] + ROW / 2 + 3.5
    start = _x(layout, left, span.start)
    if label.place == "inside":
        return _text(start + 4, y, clip(label.text, TOOLTIP_CHARS), 10, "#ffffff")
    halo = f' stroke="{HALO}" stroke-width="3" paint-order="stroke"'
    if label.place == "after":
        return _text(max(_x(layout, left, span.end), start + MIN_BAR) + 3, y, label.text, 10, INK, halo)
    return _text(start - 3, y, label.text, 10, INK, halo + ' text-anchor="end"')


def _call(span: CallSpan) -> str:
    """A call's tooltip: what it was, where, how it went, how long it took and what it cost."""
    return (f"{clip(span.label, TOOLTIP_CHARS)} · {clip(span.phase, LABEL_CHARS)} · {span.outcome} · "
            f"{seconds(span.end - span.start)} · {span.tokens:,} tokens · attempt {span.attempt}"
            + (f" · {span.error}" if span.error else ""))


def _bar(layout: TimelineLayout, left: float, span: CallSpan, y: float) -> str:
    """A call's bar (at least ``MIN_BAR`` pixels wide), or for a cached call a tick, with its tooltip."""
    tooltip = _tooltip(_call(span))
    x = _x(layout, left, span.start)
    if span.outcome == "cached":
        return (f'<rect x="{round(x - TICK / 2, 1)}" y="{round(y, 1)}" width="{TICK}" height="{ROW - 1}">'
                f"{tooltip}</rect>")
    width = round(max(_x(layout, left, span.end) - x, MIN_BAR), 1)
    return (f'<rect x="{x}" y="{round(y + (ROW - BAR) / 2, 1)}" width="{width}" height="{BAR}" rx="1.5">'
            f"{tooltip}</rect>")


def _listed(layout: TimelineLayout, top: float) -> str:
    """The calls that did not simply answer, by name, under the picture (nothing when every call answered)."""
    if not layout.listed:
        return ""
    parts = [_text(MARGIN, top, LISTED_TITLE, 12, INK, ' font-weight="600"')]
    for index, line in enumerate(layout.listed, 1):
        parts.append(_fitted(MARGIN, top + 4 + index * LINE, line, CAPTION_CHARS, 11, INK))
    return "".join(parts)


def _tokens(layout: TimelineLayout, left: float, top: float) -> str:
    """Two bars a phase, this attempt above all attempts, to one scale, each with its number."""
    most = max((row.cumulative for row in layout.tokens), default=0) or 1
    parts = [_text(MARGIN, top, "Tokens by phase", 12, INK, ' font-weight="600"')]
    x = left
    for colour, meaning in TOKEN_COLOURS:
        parts.append(f'<rect x="{x}" y="{round(top - 10, 1)}" width="14" height="{TOKEN_BAR}" fill="{colour}"/>'
                     + _text(x + 19, top - 1, meaning, 10.5, FAINT_INK))
        x += 19 + len(meaning) * 6 + 18
    y = top + 10
    for row in layout.tokens:
        parts.append(_text(left - 8, y + TOKEN_ROW / 2 + 2, clip(row.phase, LABEL_CHARS), 11, INK,
                           ' text-anchor="end"', row.phase))
        for index, (value, (colour, _)) in enumerate(zip((row.attempt, row.cumulative), TOKEN_COLOURS, strict=True)):
            bar_y = y + 2 + index * (TOKEN_BAR + 1)
            width = round(max(value, 0) / most * TOKEN_WIDTH, 1)
            parts.append(f'<rect x="{left}" y="{round(bar_y, 1)}" width="{width}" height="{TOKEN_BAR}" '
                         f'fill="{colour}"/>' + _text(left + width + 4, bar_y + 8, f"{value:,}", 10, FAINT_INK))
        y += TOKEN_ROW
    if not layout.tokens:
        parts.append(_text(left, y + 12, "no tokens", 11, FAINT_INK))
    return "".join(parts)

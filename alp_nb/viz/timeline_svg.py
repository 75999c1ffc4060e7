"""A run's timeline as SVG in pure Python: a lane of call bars per phase over a time axis, then the tokens of
each phase, this attempt and in all.

As in ``svg.py``: text stays ``<text>``, every string passes through ``xml_text`` (a run's labels and phases come
from a script, or from a store someone else wrote), colours are attributes, and the document is well-formed XML.
Each bar carries its call in a ``<title>``, the tooltip a browser shows on hover. Bars are grouped by outcome, so
their colour is written once per group: the most calls drawn (``MAX_BARS``) stay under half a megabyte.

``cursor_svg`` draws a cursor on one call in a picture of the same size and nothing else, to be laid over the
timeline: a viewer stepping through a hundred thousand calls moves the cursor without drawing the timeline again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from alp_nb.replay.timeline import CallSpan

from .geometry import clip
from .palette import FAINT_INK, INK
from .svg import FONT, xml_text
from .timeline_layout import (
    MIN_BAR,
    OUTCOME_STYLES,
    PLOT_WIDTH,
    TOKEN_COLOURS,
    BarLabel,
    TimelineLayout,
    seconds,
)

MARGIN = 14.0
LABEL_WIDTH = 170.0
"""The column of phase names left of the plot."""
LABEL_CHARS = 26
TITLE_CHARS = 120
CAPTION_CHARS = 150
TOOLTIP_CHARS = 200
SUMMARY_CHARS = 70
"""What is said of a resumed attempt beside its line: about half the plot's width."""
ROW, BAR, TICK = 16.0, 11.0, 2.0
LANE_GAP = 6.0
LINE = 15.0
TOKEN_ROW, TOKEN_BAR = 24.0, 9.0
TOKEN_WIDTH = PLOT_WIDTH * 0.8
"""The longest token bar, leaving room for its number."""
LANE_SHADES = ("#f7f9fc", "#ffffff")
AXIS = "#bbbbbb"
CURSOR, HALO = "#111111", "#ffffff"
"""The cursor: a dark outline with a white halo, never a fill, which would change the colour of the bar it marks
(amber over a failed call's red reads as a retried call's orange)."""


@dataclass(frozen=True)
class Frame:
    """Where a timeline picture's parts sit: its size, the left edge of the plot, and the top of each lane's band
    followed by the bottom of the last one (the time axis)."""

    width: int
    height: int
    left: float
    lane_tops: tuple[float, ...]


def timeline_frame(layout: TimelineLayout) -> Frame:
    """The frame of ``layout``'s picture, worked out without drawing it."""
    tops = [MARGIN + 22 + LINE * len(layout.caption) + 44]
    for lane in layout.lanes:
        tops.append(tops[-1] + lane.rows * ROW + LANE_GAP)
    tokens_bottom = tops[-1] + 40 + 10 + TOKEN_ROW * max(len(layout.tokens), 1)
    left = MARGIN + LABEL_WIDTH
    return Frame(round(left + PLOT_WIDTH + 3 * MARGIN), round(tokens_bottom + MARGIN), left, tuple(tops))


def timeline_svg(title: str, layout: TimelineLayout) -> str:
    """The picture as one ``<svg>`` element: title, caption, legend, lanes over the time axis, tokens by phase."""
    frame = timeline_frame(layout)
    shown = clip(title, TITLE_CHARS)
    parts = [_text(MARGIN, MARGIN + 14, shown, 14, INK, ' font-weight="600"')]
    y = MARGIN + 22
    for line in layout.caption:
        y += LINE
        parts.append(_text(MARGIN, y, clip(line, CAPTION_CHARS), 11, FAINT_INK))
    parts.append(_legend(layout, MARGIN, y + 10))
    lanes = _lanes(layout, frame)
    tokens = _tokens(layout, frame.left, frame.lane_tops[-1] + 40)
    return (f'{_svg_open(frame)} font-family="{FONT}" font-size="12" role="img" aria-label="{xml_text(shown)}">'
            f"<title>{xml_text(shown)}</title>{''.join(parts)}{lanes}{tokens}</svg>")


def cursor_svg(layout: TimelineLayout, span: CallSpan) -> str:
    """A picture the size of ``span``'s timeline holding only a cursor on it, to lay over the timeline: a line at
    the call's start across every lane, and a box around its bar, or around its time in its lane when the timeline
    left it out. It ignores the pointer, so the bars' tooltips under it still show."""
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
    """The index of ``span``'s lane, and its bar's row if the picture drew it. A phase without a lane of its own
    shares the last one."""
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


def _tooltip(text: str) -> str:
    return f"<title>{xml_text(clip(text, TOOLTIP_CHARS))}</title>"


def _x(layout: TimelineLayout, left: float, at: float) -> float:
    return round(left + at / layout.duration * PLOT_WIDTH, 1)


def _legend(layout: TimelineLayout, x: float, y: float) -> str:
    """A swatch per outcome drawn: a bar, or for a cached call a tick."""
    parts = []
    for outcome in layout.outcomes:
        colour, meaning = OUTCOME_STYLES[outcome]
        parts.append(f'<rect x="{x + 5}" y="{y}" width="{TICK + 0.4}" height="14" fill="{colour}"/>'
                     if outcome == "cached" else
                     f'<rect x="{x}" y="{y + 2}" width="14" height="{BAR}" fill="{colour}"/>')
        parts.append(_text(x + 19, y + 11, meaning, 10.5, FAINT_INK))
        x += 19 + len(meaning) * 6 + 18
    return "".join(parts)


def _lanes(layout: TimelineLayout, frame: Frame) -> str:
    """The lane bands with their phase names, a line where each later attempt began, the bars, the labels that
    fit on them, and the time axis."""
    parts, row_y, left, top, y = [], {}, frame.left, frame.lane_tops[0], frame.lane_tops[-1]
    for index, (lane, lane_top) in enumerate(zip(layout.lanes, frame.lane_tops[:-1], strict=True)):
        height = lane.rows * ROW + LANE_GAP
        parts.append(f'<rect x="{left}" y="{round(lane_top, 1)}" width="{PLOT_WIDTH}" height="{height}" '
                     f'fill="{LANE_SHADES[index % 2]}"/>'
                     + _text(left - 8, lane_top + height / 2 + 4, clip(lane.phase, LABEL_CHARS), 11, INK,
                             ' text-anchor="end"', lane.phase))
        row_y.update({lane.first_row + row: lane_top + LANE_GAP / 2 + row * ROW for row in range(lane.rows)})
    for start, summary in layout.resumes:  # under the bars, which stay readable where an attempt began
        x = _x(layout, left, start.at)
        near_end = x > left + PLOT_WIDTH * 0.85  # the words read leftward there, inside the page
        parts.append(f'<path d="M{x},{round(top - 14, 1)}V{round(y, 1)}" stroke="{FAINT_INK}" '
                     'stroke-dasharray="4,3"/>'
                     + _text(x - 3 if near_end else x + 3, top - 4, clip(summary, SUMMARY_CHARS), 10, FAINT_INK,
                             ' text-anchor="end"' if near_end else ""))
    for outcome, (colour, _) in OUTCOME_STYLES.items():
        bars = [_bar(layout, left, bar.span, row_y[bar.row]) for bar in layout.bars if bar.span.outcome == outcome]
        if bars:
            parts.append(f'<g fill="{colour}">{"".join(bars)}</g>')
    parts.append(f'<g pointer-events="none">{"".join(_label(layout, left, label, row_y) for label in layout.labelled)}'
                 "</g>")
    parts.append(f'<path d="M{left},{round(top, 1)}V{round(y, 1)}H{left + PLOT_WIDTH}" fill="none" stroke="{AXIS}"/>')
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


def _bar(layout: TimelineLayout, left: float, span: CallSpan, y: float) -> str:
    """A call's bar (at least 3 pixels wide), or for a cached call a tick, with its tooltip."""
    tooltip = _tooltip(f"{clip(span.label, TOOLTIP_CHARS)} · {clip(span.phase, LABEL_CHARS)} · {span.outcome} · "
                       f"{seconds(span.end - span.start)} · {span.tokens:,} tokens · attempt {span.attempt}")
    x = _x(layout, left, span.start)
    if span.outcome == "cached":
        return (f'<rect x="{round(x - TICK / 2, 1)}" y="{round(y, 1)}" width="{TICK}" height="{ROW - 1}">'
                f"{tooltip}</rect>")
    width = round(max(_x(layout, left, span.end) - x, 3.0), 1)
    return (f'<rect x="{x}" y="{round(y + (ROW - BAR) / 2, 1)}" width="{width}" height="{BAR}" rx="1.5">'
            f"{tooltip}</rect>")


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
                         f'fill="{colour}"/>' + _text(left + width + 4, bar_y + 8, f"{value:,}", 9.5, FAINT_INK))
        y += TOKEN_ROW
    if not layout.tokens:
        parts.append(_text(left, y + 12, "no tokens", 11, FAINT_INK))
    return "".join(parts)

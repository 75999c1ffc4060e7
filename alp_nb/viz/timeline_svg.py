"""A run's timeline as SVG in pure Python: a lane of call bars per phase over a time axis, then the tokens of
each phase, this attempt and in all.

As in ``svg.py``: text stays ``<text>``, every string passes through ``xml_text`` (a run's labels and phases come
from a script, or from a store someone else wrote), colours are attributes, and the document is well-formed XML.
Each bar carries its call in a ``<title>``, the tooltip a browser shows on hover. Bars are grouped by outcome, so
their colour is written once per group: the most calls drawn (``MAX_BARS``) stay under half a megabyte.
"""

from __future__ import annotations

from .geometry import clip
from .palette import FAINT_INK, INK
from .svg import FONT, xml_text
from .timeline import CallSpan
from .timeline_layout import OUTCOME_STYLES, PLOT_WIDTH, TOKEN_COLOURS, TimelineLayout, seconds

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


def timeline_svg(title: str, layout: TimelineLayout) -> str:
    """The picture as one ``<svg>`` element: title, caption, legend, lanes over the time axis, tokens by phase."""
    left = MARGIN + LABEL_WIDTH
    width = round(left + PLOT_WIDTH + 3 * MARGIN)
    shown = clip(title, TITLE_CHARS)
    parts = [_text(MARGIN, MARGIN + 14, shown, 14, INK, ' font-weight="600"')]
    y = MARGIN + 22
    for line in layout.caption:
        y += LINE
        parts.append(_text(MARGIN, y, clip(line, CAPTION_CHARS), 11, FAINT_INK))
    parts.append(_legend(layout, MARGIN, y + 10))
    lanes, y = _lanes(layout, left, y + 44)
    tokens, y = _tokens(layout, left, y + 40)
    height = round(y + MARGIN)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} '
            f'{height}" font-family="{FONT}" font-size="12" role="img" aria-label="{xml_text(shown)}">'
            f"<title>{xml_text(shown)}</title>{''.join(parts)}{lanes}{tokens}</svg>")


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


def _lanes(layout: TimelineLayout, left: float, top: float) -> tuple[str, float]:
    """The lane bands with their phase names, a line where each later attempt began, the bars, the labels that
    fit on them, and the time axis; and where the axis ends."""
    parts, row_y, y = [], {}, top
    for index, lane in enumerate(layout.lanes):
        height = lane.rows * ROW + LANE_GAP
        parts.append(f'<rect x="{left}" y="{round(y, 1)}" width="{PLOT_WIDTH}" height="{height}" '
                     f'fill="{LANE_SHADES[index % 2]}"/>'
                     + _text(left - 8, y + height / 2 + 4, clip(lane.phase, LABEL_CHARS), 11, INK,
                             ' text-anchor="end"', lane.phase))
        row_y.update({lane.first_row + row: y + LANE_GAP / 2 + row * ROW for row in range(lane.rows)})
        y += height
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
    labels = [_text(_x(layout, left, bar.span.start) + 4, row_y[bar.row] + ROW / 2 + 3.5,
                    clip(bar.span.label, TOOLTIP_CHARS), 10, "#ffffff") for bar in layout.labelled]
    parts.append("".join(labels))
    parts.append(f'<path d="M{left},{round(top, 1)}V{round(y, 1)}H{left + PLOT_WIDTH}" fill="none" stroke="{AXIS}"/>')
    per, unit = layout.unit
    for at in layout.ticks:
        x = _x(layout, left, at)
        parts.append(f'<path d="M{x},{round(y, 1)}v4" stroke="{AXIS}"/>'
                     + _text(x, y + 16, f"{at / per:g} {unit}", 10, FAINT_INK, ' text-anchor="middle"'))
    return "".join(parts), y


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


def _tokens(layout: TimelineLayout, left: float, top: float) -> tuple[str, float]:
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
        y += TOKEN_ROW
    return "".join(parts), y

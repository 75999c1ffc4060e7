"""A run's timeline drawn with matplotlib, for users who compose figures: the same lanes, bars or counts,
colours, caption and list of calls as the SVG, on an ``Axes`` of theirs, or on a new figure whose second panel
shows the tokens by phase.

Bars are drawn as one collection per outcome, so a picture of ``MAX_BARS`` calls draws as fast as one of ten; counts
are one filled staircase per lane and outcome. Text from the run is never read as mathtext (``parse_math=False``):
a ``$`` in a phase name stays a dollar sign. matplotlib is imported only when a timeline is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from alp_nb.base.text import clip
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
    TimelineLayout,
    stacked,
)
from alp_nb.viz.renderers.figure_text import drawable

if TYPE_CHECKING:
    from matplotlib.axes import Axes

LANE_GAP = 0.4
"""Space between lanes, in rows."""
MARK_ROOM, LEAST = 0.45, 0.06
"""In rows: the strip atop a lane of counts where the flagged calls' ticks have their heads, and the least height
of an outcome's part of a column that holds any of its calls (about a pixel)."""


def draw_timeline(title: str, layout: TimelineLayout, ax: Axes | None = None) -> Axes:
    """The calls lane by lane on ``ax`` (returned); with none, a new figure with the tokens by phase below."""
    import matplotlib.pyplot as plt

    if ax is None:
        calls_height = (1.9 + 0.14 * (len(layout.caption) + len(layout.listed))
                        + 0.2 * (layout.rows + LANE_GAP * len(layout.lanes)))
        tokens_height = 0.9 + 0.32 * max(len(layout.tokens), 1)
        _, (ax, tokens_ax) = plt.subplots(2, 1, figsize=(10, calls_height + tokens_height),
                                          height_ratios=(calls_height, tokens_height), layout="constrained")
        draw_tokens(layout, tokens_ax)
    _draw_calls(title, layout, ax)
    return ax


def _draw_calls(title: str, layout: TimelineLayout, ax: Axes) -> None:
    """The lanes with their labels, the bars or counts, the lines where later attempts began, the axis, the legend,
    the caption above and the list of calls below."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    per, unit = layout.unit
    tops, centres, labels = [], [], []
    for index, lane in enumerate(layout.lanes):
        top = lane.first_row + index * LANE_GAP
        ax.axhspan(top, top + lane.rows + LANE_GAP, color=LANE_SHADES[index % 2], zorder=0, linewidth=0)
        tops.append(top + LANE_GAP / 2)
        centres.append(top + (lane.rows + LANE_GAP) / 2)
        labels.append("\n".join(drawable(line) for line in [lane.title(LABEL_CHARS), *lane.details][: lane.rows]))
    if layout.view == "bars":
        _draw_bars(layout, ax, dict(zip((lane.first_row for lane in layout.lanes), tops, strict=True)))
    else:
        _draw_counts(layout, ax, tops)
    for start, summary in layout.resumes:
        near_end = start.at > layout.duration * 0.85
        ax.axvline(start.at / per, color=FAINT_INK, linestyle="--", linewidth=0.8, zorder=0.5)
        ax.text(start.at / per, 0, f" {summary} ", fontsize=7, color=FAINT_INK, va="bottom",
                ha="right" if near_end else "left")
    ax.set_xlim(0, layout.duration / per * 1.01)  # room for a tick at the very end
    ax.set_ylim(max(layout.rows + LANE_GAP * len(layout.lanes), 1), 0)
    ax.set_xticks([at / per for at in layout.ticks], [f"{at / per:g}" for at in layout.ticks])
    ax.set_xlabel(f"time ({unit})", fontsize=8)
    ax.set_yticks(centres, labels, parse_math=False)
    ax.tick_params(labelsize=8, length=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    handles = [Line2D([], [], color=OUTCOME_STYLES[o][0], linewidth=1.5, label=meaning) if tick
               else Patch(color=OUTCOME_STYLES[o][0], label=meaning) for o, meaning, tick in layout.legend]
    if handles:
        ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.0), ncols=len(handles), frameon=False,
                  fontsize=7.5, borderaxespad=0.2, handlelength=1.2)
    caption = "\n".join(drawable(clip(line, CAPTION_CHARS)) for line in layout.caption)
    ax.annotate(caption, (0, 1), xycoords="axes fraction", xytext=(0, 18), textcoords="offset points",
                va="bottom", fontsize=7.5, color=FAINT_INK, parse_math=False)
    if layout.listed:
        listed = "\n".join(drawable(clip(line, CAPTION_CHARS)) for line in layout.listed)
        ax.annotate(listed, (0, 0), xycoords="axes fraction", xytext=(0, -30), textcoords="offset points",
                    va="top", fontsize=7.5, color=INK, parse_math=False)
    ax.set_title(drawable(clip(title, TITLE_CHARS)), loc="left", fontsize=10, fontweight="bold", color=INK,
                 pad=22 + 10.5 * len(layout.caption), parse_math=False)


def _draw_bars(layout: TimelineLayout, ax: Axes, lane_tops: dict[int, float]) -> None:
    """The bars, a collection per outcome (a cached call a tick), and the labels on or beside them."""
    from matplotlib import patheffects
    from matplotlib.collections import LineCollection, PolyCollection

    per = layout.unit[0]
    narrowest = layout.duration / per * MIN_BAR / PLOT_WIDTH
    row_top = {lane.first_row + row: lane_tops[lane.first_row] + row
               for lane in layout.lanes for row in range(lane.rows)}
    for outcome, (colour, _) in OUTCOME_STYLES.items():
        bars = [bar for bar in layout.bars if bar.span.outcome == outcome]
        if outcome == "cached":
            ax.add_collection(LineCollection([((bar.span.start / per, row_top[bar.row]),
                                               (bar.span.start / per, row_top[bar.row] + 0.95)) for bar in bars],
                                             colors=colour, linewidths=1.2))
        elif bars:
            boxes = []
            for bar in bars:
                left, right, top = bar.span.start / per, bar.span.end / per, row_top[bar.row] + 0.15
                right = max(right, left + narrowest)
                boxes.append(((left, top), (right, top), (right, top + 0.7), (left, top + 0.7)))
            ax.add_collection(PolyCollection(boxes, facecolors=colour, edgecolors="none"))
    halo = [patheffects.withStroke(linewidth=2.5, foreground="#ffffff")]
    for label in layout.labelled:
        span, middle = label.bar.span, row_top[label.bar.row] + 0.5
        if label.place == "inside":
            ax.text(span.start / per + narrowest, middle, drawable(label.text), fontsize=7, color="#ffffff",
                    va="center", clip_on=True, parse_math=False)
        else:
            after = label.place == "after"
            ax.text(max(span.end / per, span.start / per + narrowest) if after else span.start / per,
                    middle, f" {drawable(label.text)} ", fontsize=7, color=INK, va="center",
                    ha="left" if after else "right", clip_on=True, parse_math=False, path_effects=halo)


def _draw_counts(layout: TimelineLayout, ax: Axes, lane_tops: list[float]) -> None:
    """Each lane's calls over time, a filled staircase per outcome stacked as in the SVG, then a tick on each
    flagged call, its head in the strip atop its lane."""
    per = layout.unit[0]
    edges = numpy.linspace(0, layout.duration / per, COLUMNS + 1)
    for lane, top, counts in zip(layout.lanes, lane_tops, layout.counts, strict=True):
        if not lane.busiest:
            continue
        bottom = top + lane.rows
        below = numpy.zeros(COLUMNS)
        tops = stacked(counts, lane.busiest, lane.rows - MARK_ROOM, LEAST)
        for outcome, above in zip(CALL_OUTCOMES, tops, strict=True):
            if (above > below).any():
                ax.stairs(bottom - above, edges, baseline=bottom - below, fill=True, color=OUTCOME_STYLES[outcome][0],
                          linewidth=0)
            below = above
    for outcome in CALL_OUTCOMES:
        marks = [mark for mark in layout.marks if mark.span.outcome == outcome]
        if marks:
            colour = OUTCOME_STYLES[outcome][0]
            xs = [mark.span.start / per for mark in marks]
            heads = [lane_tops[mark.lane] + 0.12 for mark in marks]
            ax.vlines(xs, heads, [lane_tops[mark.lane] + layout.lanes[mark.lane].rows for mark in marks],
                      colors=colour, linewidths=0.8, zorder=3)
            ax.scatter(xs, heads, marker="v", s=14, color=colour, zorder=3, linewidths=0)


def draw_tokens(layout: TimelineLayout, ax: Axes) -> Axes:
    """Two bars a phase on ``ax``: the tokens of this attempt, and of all attempts, each with its number."""
    rows = layout.tokens
    places = range(len(rows))
    for offset, value_of, (colour, meaning) in ((-0.2, lambda row: row.attempt, TOKEN_COLOURS[0]),
                                                (0.2, lambda row: row.cumulative, TOKEN_COLOURS[1])):
        bars = ax.barh([place + offset for place in places], [value_of(row) for row in rows], height=0.38,
                       color=colour, label=meaning)
        ax.bar_label(bars, [f"{value_of(row):,}" for row in rows], padding=3, fontsize=7, color=FAINT_INK)
    ax.set_yticks(list(places), [drawable(clip(row.phase, LABEL_CHARS)) for row in rows], parse_math=False)
    ax.set_ylim(len(rows) - 0.5 if rows else 0.5, -0.5)
    ax.margins(x=0.12)
    ax.tick_params(labelsize=8, length=0)
    ax.set_xlabel("tokens", fontsize=8)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title("Tokens by phase", loc="left", fontsize=9, fontweight="bold", color=INK)
    ax.legend(loc="lower right", bbox_to_anchor=(1, 1.0), ncols=2, frameon=False, fontsize=7.5,
              borderaxespad=0.2)
    return ax

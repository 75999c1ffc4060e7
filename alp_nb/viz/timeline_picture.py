"""The timeline of a run, and every way to draw it: matplotlib (two panels: calls over time, tokens by phase), SVG,
a compact text table, and a notebook view.

``run_timeline(run)`` takes any run ``replay.record_of`` reads (a ``RunRecord``, a ``WorkflowRun``, ``(RunStore,
run_id)``, a run id) or a ``Timeline`` and holds only the model (``replay.timeline.Timeline``, made from the run's
journal); each format draws that model, through
``timeline_layout`` so that every format shows the same calls. There is no Mermaid form: a timeline is not boxes
and arrows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from alp_nb.replay.locate import timeline_of
from alp_nb.replay.timeline import CALL_OUTCOMES, CallSpan, Timeline

from .geometry import clip
from .terminal import plain_line
from .timeline_layout import MAX_LANES, TimelineLayout, seconds, timeline_layout
from .timeline_svg import timeline_svg
from .views import mimebundle

if TYPE_CHECKING:
    from matplotlib.axes import Axes

PHASE_CHARS = 30
LABEL_CHARS = 60
NOTABLE = ("failed", "unfinished", "retried")
"""The outcomes whose calls the text names one by one (at most ``NOTABLE_SHOWN``)."""
NOTABLE_SHOWN = 10


@dataclass(frozen=True)
class RunTimeline:
    """A run's agent calls over time, lane by lane per phase, and its tokens by phase."""

    timeline: Timeline

    @cached_property
    def layout(self) -> TimelineLayout:
        return timeline_layout(self.timeline)

    def to_svg(self) -> str:
        return timeline_svg(self.timeline.title, self.layout)

    def to_text(self) -> str:
        return timeline_text(self.timeline, self.layout)

    def draw(self, ax: Axes | None = None) -> Axes:
        """Draw the calls on ``ax`` and return it; with no axes, a new figure of two panels, the calls above the
        tokens by phase (``ax.figure`` holds both)."""
        from .timeline_figure import draw_timeline

        return draw_timeline(self.timeline.title, self.layout, ax)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        return mimebundle(self)


def run_timeline(run: Any) -> RunTimeline:
    """The timeline picture of ``run``: any run ``replay.record_of`` reads, or a ``Timeline``.

    >>> from alp_nb.replay import CallSpan, Timeline
    >>> spans = (CallSpan("agent-1", "audit", "Review", 0.0, 0.4, "live"),
    ...          CallSpan("agent-2", "verify", "Verify", 0.4, 0.5, "failed", error="TimeoutError"))
    >>> print(run_timeline(Timeline("review", spans)).to_text())
    review
    2 calls (1 live, 1 failed) over 500 ms
      phase   calls  live  failed  call time  tokens this attempt  all attempts
      Review      1     1       0     400 ms                    0             0
      Verify      1     0       1     100 ms                    0             0
      failed: verify (Verify, attempt 1, 100 ms)
    """
    return RunTimeline(timeline_of(run))


def timeline_text(timeline: Timeline, layout: TimelineLayout) -> str:
    """The title and caption, a table of the phases (calls by outcome, time in calls, tokens this attempt and in all),
    then the calls that failed, were retried or never ended, by name."""
    tallies = _tallies(timeline)
    outcomes = [outcome for outcome in CALL_OUTCOMES if any(tally.calls[outcome] for _, tally in tallies)]
    table = [["phase", "calls", *outcomes, "call time", "tokens this attempt", "all attempts"]]
    table += [[plain_line(clip(phase, PHASE_CHARS)), f"{tally.calls.total():,}",
               *(f"{tally.calls[outcome]:,}" for outcome in outcomes), seconds(tally.busy), f"{tally.now:,}",
               f"{tally.total:,}"] for phase, tally in tallies]
    widths = [max(len(row[column]) for row in table) for column in range(len(table[0]))]
    lines = [plain_line(timeline.title), *map(plain_line, layout.caption)]
    lines += ["  " + "  ".join(cell.ljust(width) if column == 0 else cell.rjust(width)
                               for column, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()
              for row in table]
    notable = sorted((span for span in timeline.spans if span.outcome in NOTABLE),
                     key=lambda span: (NOTABLE.index(span.outcome), span.start))
    lines += [f"  {span.outcome}: {_call(span)}" for span in notable[:NOTABLE_SHOWN]]
    if len(notable) > NOTABLE_SHOWN:
        lines.append(f"  and {len(notable) - NOTABLE_SHOWN:,} more failed, retried or unfinished calls")
    return "\n".join(lines)


def _call(span: CallSpan) -> str:
    return (f"{plain_line(clip(span.label, LABEL_CHARS))} ({plain_line(clip(span.phase, PHASE_CHARS))}, "
            f"attempt {span.attempt}, {seconds(span.end - span.start)})")


@dataclass
class _Tally:
    """One phase's row of the table."""

    calls: Counter[str] = field(default_factory=Counter)
    busy: float = 0.0
    now: int = 0
    total: int = 0

    def add(self, other: _Tally) -> None:
        self.calls.update(other.calls)
        self.busy += other.busy
        self.now += other.now
        self.total += other.total


def _tallies(timeline: Timeline) -> list[tuple[str, _Tally]]:
    """Each phase's tally, in the timeline's order, the phases after ``MAX_LANES - 1`` summed into one."""
    tallies: defaultdict[str, _Tally] = defaultdict(_Tally)
    for span in timeline.spans:
        tally = tallies[span.phase]
        tally.calls[span.outcome] += 1
        tally.busy += span.end - span.start
    for row in timeline.tokens:
        tallies[row.phase].now += row.attempt
        tallies[row.phase].total += row.cumulative
    phases = list(dict.fromkeys([*timeline.phases, *tallies]))
    if len(phases) <= MAX_LANES:
        return [(phase, tallies[phase]) for phase in phases]
    merged = _Tally()
    for phase in phases[MAX_LANES - 1:]:
        merged.add(tallies[phase])
    return [*((phase, tallies[phase]) for phase in phases[: MAX_LANES - 1]),
            (f"{len(phases) - MAX_LANES + 1} more phases", merged)]


def run_timeline_html(picture: RunTimeline) -> str:
    return f'<div class="alp-picture" style="overflow-x:auto;max-width:100%">{picture.to_svg()}</div>'


def run_timeline_svg(picture: RunTimeline) -> str:
    return picture.to_svg()


def run_timeline_text(picture: RunTimeline) -> str:
    return picture.to_text()

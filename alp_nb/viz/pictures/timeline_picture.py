"""The timeline of a run, and every way to draw it: matplotlib (two panels: calls over time, tokens by phase), SVG,
a compact text table, and a notebook view.

``run_timeline(run)`` takes any run ``replay.record_of`` reads (a ``RunRecord``, a ``WorkflowRun``, ``(RunStore,
run_id)``, a run id) or a ``Timeline`` and holds only the model (``replay.timeline.Timeline``, made from the run's
journal); each format draws that model, through
``timeline_layout`` so that every format shows the same calls. There is no Mermaid form: a timeline is not boxes
and arrows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from alp_nb.replay.locate import timeline_of
from alp_nb.replay.timeline import Timeline
from alp_nb.viz.models.timeline_layout import TimelineLayout, timeline_layout
from alp_nb.viz.pictures.picture import Picture
from alp_nb.viz.renderers.timeline_svg import timeline_svg
from alp_nb.viz.renderers.timeline_text import timeline_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class RunTimeline(Picture):
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
        from alp_nb.viz.renderers.timeline_figure import draw_timeline

        return draw_timeline(self.timeline.title, self.layout, ax)


def run_timeline(run: Any) -> RunTimeline:
    """The timeline picture of ``run``: any run ``replay.record_of`` reads, or a ``Timeline``.

    >>> from alp_nb.replay import CallSpan, Timeline
    >>> spans = (CallSpan("agent-1", "audit", "Review", 0.0, 0.4, "live"),
    ...          CallSpan("agent-2", "verify", "Verify", 0.4, 0.5, "failed", error="TimeoutError"))
    >>> print(run_timeline(Timeline("review", spans)).to_text())
    review
    2 calls (1 live, 1 failed) over 500 ms
    Each bar is a call from its start to its end (at least 3 px wide); overlapping bars stack in rows, at most 8 a lane.
      phase   calls  at once  live  failed  call time  tokens this attempt  all attempts
      Review      1        1     1       0     400 ms                    0             0
      Verify      1        1     0       1     100 ms                    0             0
      failed: verify (Verify, attempt 1, 100 ms) · TimeoutError
    """
    return RunTimeline(timeline_of(run))

"""A run's timeline as plain text: its title and caption, a table of the phases, each lane's calls over time as a
line of characters when the picture counts them, and the calls that did not simply answer, by name. Every string
from the run passes through ``terminal.plain_line``: a journal is untrusted."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from alp_nb.base.text import clip
from alp_nb.replay.timeline import Timeline
from alp_nb.runtime.journal.outcomes import CALL_OUTCOMES
from alp_nb.viz.models.timeline_layout import COLUMNS, MAX_LANES, TimelineLayout, seconds
from alp_nb.viz.terminal import plain_line

PHASE_CHARS = 30
SPARK_CHARS = 64
"""The characters of a lane's calls over time in the text of the counts view: each the busiest of its slices."""
SPARKS = " ▁▂▃▄▅▆▇█"
"""A slice's calls as a character, from none to the lane's busiest."""


def timeline_text(timeline: Timeline, layout: TimelineLayout) -> str:
    """The title and caption, a table of the phases (calls by outcome and at once, time in calls, tokens this
    attempt and in all), in the counts view each lane's calls over time, then the flagged calls by name."""
    tallies = _tallies(timeline)
    at_once = {lane.phase: lane.at_once for lane in layout.lanes}
    outcomes = [outcome for outcome in CALL_OUTCOMES if any(tally.calls[outcome] for _, tally in tallies)]
    table = [["phase", "calls", "at once", *outcomes, "call time", "tokens this attempt", "all attempts"]]
    table += [[plain_line(clip(phase, PHASE_CHARS)), f"{tally.calls.total():,}", f"{at_once.get(phase, 0):,}",
               *(f"{tally.calls[outcome]:,}" for outcome in outcomes), seconds(tally.busy), f"{tally.now:,}",
               f"{tally.total:,}"] for phase, tally in tallies]
    lines = [plain_line(timeline.title), *map(plain_line, layout.caption), *_aligned(table)]
    if layout.view == "counts":
        lines += _over_time(layout)
    lines += [f"  {plain_line(line)}" for line in layout.listed]
    return "\n".join(lines)


def _aligned(table: list[list[str]]) -> list[str]:
    """The rows of ``table``, indented, the first column to the left and the others to the right."""
    widths = [max(len(row[column]) for row in table) for column in range(len(table[0]))]
    return ["  " + "  ".join(cell.ljust(width) if column == 0 else cell.rjust(width)
                             for column, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in table]


def _over_time(layout: TimelineLayout) -> list[str]:
    """Each lane's calls over time as a line of ``SPARKS``, the busiest of each run of slices a character, ``█``
    the lane's busiest, as its columns are drawn in the picture."""
    per = COLUMNS // SPARK_CHARS
    busiest = layout.counts.sum(axis=1).reshape(len(layout.lanes), SPARK_CHARS, per).max(axis=2)
    names = [plain_line(clip(lane.phase, PHASE_CHARS)) for lane in layout.lanes]
    width = max(map(len, names), default=0)
    lines = [f"  calls running over time, a character for each {seconds(layout.duration / SPARK_CHARS)} "
             f"(the busiest of its {per} slices):"]
    for name, lane, row in zip(names, layout.lanes, busiest.tolist(), strict=True):
        top = len(SPARKS) - 1
        sparks = "".join(SPARKS[min(-(-count * top // lane.busiest), top)] if count else SPARKS[0] for count in row)
        lines.append(f"  {name.ljust(width)}  {sparks}  {', '.join(lane.details)}".rstrip())
    return lines


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

"""``RunViewer``: a finished (or stopped) run stepped through call by call, after the fact.

The run is read once; nothing is ever run again. The timeline is drawn once, and a cursor is laid over it in a
picture of its own that holds nothing else, so a move redraws only small things: the cursor, the call under it,
its neighbours and the progress of each phase up to it. A move costs the same on a run of ten calls or of a
hundred thousand.
"""

from __future__ import annotations

import json
import threading
from bisect import bisect_left, bisect_right
from typing import Any

import ipywidgets as widgets

from alp_nb.base.errors import AlpError
from alp_nb.replay.errors import ReplayError
from alp_nb.replay.follow import ENDED, RunFollower
from alp_nb.replay.locate import record_of
from alp_nb.replay.record import RunRecord
from alp_nb.replay.run_calls import RunCall, RunCalls
from alp_nb.replay.timeline import Timeline
from alp_nb.runtime.journal.outcomes import ANSWERED, KEPT, CallOutcome
from alp_nb.viz.html import STYLE, WRAPPED, badge, esc, status_badge, table
from alp_nb.viz.models.timeline_layout import OUTCOME_STYLES, seconds
from alp_nb.viz.pictures.timeline_picture import RunTimeline
from alp_nb.viz.renderers.timeline_svg import cursor_svg
from alp_nb.viz.terminal import plain_line
from alp_nb.viz.views.runs import budget_text

from .shown_text import shown, shown_block

PROMPT_CHARS, SCHEMA_CHARS, VALUE_CHARS = 2000, 1000, 2000
NEARBY = 3
"""The calls shown on each side of the current one."""
PROGRESS_PHASES = 12
"""The most phases the progress table lists (the current call's is always among them)."""
OUTCOME_SAYS = {
    "live": "answered by the runner",
    "retried": "answered twice: the first answer broke its schema, the second was kept",
    "cached": "served from the journal: the runner was not called",
    "failed": "failed: no answer was kept",
    "cancelled": "cancelled: a sibling call failed, or the run was stopped",
    "unfinished": "never ended: its attempt stopped first",
}
CURSOR_CLASS = "alp-timeline-cursor"


class RunViewer(widgets.VBox):
    """A journal scrubber over a run: any run ``replay.record_of`` reads (a ``RunRecord``: nothing read again but
    the line of the call shown; a ``WorkflowRun``, ``(RunStore, run_id)`` or a run id), or a bare ``Timeline``.

    ``slider`` picks a call (from 1, in the order the calls started), as do ``previous_button``, ``next_button``
    and ``jump`` (a journal seq, or a label or part of one; ``find_button`` finds the next). ``current`` is the
    call under the cursor (None in a run without calls); ``call`` shows it, ``nearby`` the calls around it,
    ``progress`` each phase's calls up to it, and ``cursor`` marks it on ``timeline``.
    """

    def __init__(self, run: Any) -> None:
        self.record: RunRecord | None = None if isinstance(run, Timeline) else record_of(run)
        self.current: RunCall | None = None
        self.matches: list[int] | None = None
        """The calls the filters let through, when a filter is set (None: every call)."""
        self.slider = widgets.IntSlider(value=1, min=1, max=1, description="call", layout=widgets.Layout(width="46em"))
        self.previous_button = widgets.Button(icon="chevron-left", tooltip="the call before (the match before, "
                                              "when filtered)", layout=widgets.Layout(width="3em"), disabled=True)
        self.next_button = widgets.Button(icon="chevron-right", tooltip="the call after (the match after, when "
                                          "filtered)", layout=widgets.Layout(width="3em"))
        self.jump = widgets.Text(description="find", placeholder="journal seq, or label", continuous_update=False,
                                 layout=widgets.Layout(width="22em"))
        self.find_button = widgets.Button(description="next match", icon="search")
        self.found = widgets.HTML()
        self.status_filter = widgets.Dropdown(description="status", layout=widgets.Layout(width="14em"))
        self.phase_filter = widgets.Dropdown(description="phase", layout=widgets.Layout(width="16em"))
        self.attempt_filter = widgets.Dropdown(description="attempt", layout=widgets.Layout(width="11em"))
        self.pattern = widgets.Text(description="grep", placeholder="in label, prompt or value",
                                    continuous_update=False, layout=widgets.Layout(width="20em"))
        self.first_failed_button = widgets.Button(description="first failed", icon="exclamation-triangle")
        self.matched = widgets.HTML()
        self.budget = widgets.HTML()
        self.follow_status = widgets.HTML()
        self.timeline = widgets.HTML(layout=widgets.Layout(grid_area="picture"))
        self.cursor = widgets.HTML(layout=widgets.Layout(grid_area="picture"))
        self.cursor.add_class(CURSOR_CLASS)
        self.call = widgets.HTML()
        self.nearby = widgets.HTML()
        self.progress = widgets.HTML()
        self.following: threading.Event | None = None
        self._show(RunCalls(run) if self.record is None else self.record.calls)
        self.slider.observe(lambda _: self._moved(), names="value")
        self.previous_button.on_click(lambda _: self._step(-1))
        self.next_button.on_click(lambda _: self._step(1))
        self.jump.observe(lambda _: self._find(), names="value")
        self.find_button.on_click(lambda _: self._find())
        for control in (self.status_filter, self.phase_filter, self.attempt_filter, self.pattern):
            control.observe(lambda _: self._filter(), names="value")
        self.first_failed_button.on_click(lambda _: self._first_failed())
        picture = widgets.GridBox([self.timeline, self.cursor], layout=widgets.Layout(  # one cell, as wide as the
            grid_template_areas='"picture"', grid_template_columns="minmax(0, 1fr)", width="100%"))  # viewer
        super().__init__([
            self.budget,
            self.follow_status,
            widgets.HBox([self.previous_button, self.slider, self.next_button]),
            widgets.HBox([self.jump, self.find_button, self.found]),
            widgets.HBox([self.status_filter, self.phase_filter, self.attempt_filter, self.pattern,
                          self.first_failed_button, self.matched], layout=widgets.Layout(flex_flow="row wrap")),
            picture,
            # wraps, so that in a narrow notebook the neighbours go under the call instead of past the edge
            widgets.HBox([self.call, widgets.VBox([self.nearby, self.progress])],
                         layout=widgets.Layout(flex_flow="row wrap", width="100%")),
        ], layout=widgets.Layout(max_width="100%"))
        self.add_class("alp-run-viewer")
        self.call.add_class("alp-run-viewer-call")  # a stable hook for the page (tests/test_browser.py)

    def __repr__(self) -> str:
        """What a page without the widget shows (GitHub, nbviewer): the call under the cursor in words."""
        call = self.current
        where = f"call {call.position} of {len(self.calls)}: {call.label} ({call.outcome})" if call else "no calls"
        return plain_line(f"RunViewer: {where}")

    def follow(self, interval: float = 1.0) -> RunFollower:
        """Follow the run while another process writes it: the viewer is redrawn as its files change (the cursor
        stays on the newest call when it was there), until the run ends. ``stop_following()`` stops it."""
        if self.record is None:
            raise ReplayError("INVALID_OPTION", "a viewer of a bare timeline has no run to follow")
        follower = RunFollower(self.record, interval=interval)
        self.follow_status.value = '<div class="alp muted">following: redrawn as the run\'s files change</div>'
        _, self.following = follower.start(self._grew, on_error=self._unreadable)
        return follower

    def _unreadable(self, error: AlpError) -> None:
        self.follow_status.value = f'<div class="alp">{badge("stopped following", "bad")} {esc(error.message)}</div>'

    def stop_following(self) -> None:
        if self.following is not None:
            self.following.set()

    def _grew(self, record: RunRecord) -> None:
        at_end = self.slider.value == self.slider.max
        self.record = record
        self._show(record.calls, keep=not at_end)
        if record.status in ENDED:
            self.follow_status.value = (f'<div class="alp muted">followed to its end: the run is '
                                        f"{status_badge(record.status)}</div>")

    def _show(self, calls: RunCalls, *, keep: bool = False) -> None:
        """Draw ``calls``: the timeline once, the filters' choices, the budget; the cursor on the first call (on
        the last when following, unless ``keep``)."""
        self.calls = calls
        self.picture = RunTimeline(calls.timeline)
        count = len(calls)
        self.timeline.value = (f"{STYLE}<style>.{CURSOR_CLASS}{{pointer-events:none}}</style>"
                               f"{self.picture.to_svg()}")
        _offer(self.status_filter, [(outcome, outcome) for outcome in calls.outcomes])
        _offer(self.phase_filter, [(shown(phase, 30), phase) for phase in calls.phases])
        _offer(self.attempt_filter, [(str(number), number) for number in calls.attempts])
        self._select()  # a followed run's new calls pass the filters set, or not
        self.first_failed_button.disabled = calls.first("failed") is None
        self.budget.value = _budget_html(self.record)
        for control in (self.slider, self.next_button, self.find_button):
            control.disabled = not count
        position = self.slider.value if keep else (count if self.following is not None else 1)
        self.slider.max = max(count, 1)
        self.slider.value = min(max(position, 1), max(count, 1))
        if count:
            self._moved()
        else:
            self.call.value = '<div class="alp muted">this run made no agent calls</div>'

    def _step(self, by: int) -> None:
        if self.matches is not None:
            index = self._next_match(self.slider.value - 1, by)
            if index is not None:
                self.slider.value = index + 1
            return
        self.slider.value = min(max(self.slider.value + by, self.slider.min), self.slider.max)

    def _next_match(self, index: int, by: int) -> int | None:
        matches = self.matches or []
        at = bisect_right(matches, index) if by > 0 else bisect_left(matches, index) - 1
        return matches[at] if 0 <= at < len(matches) else None

    def _filter(self) -> None:
        """Keep the calls the filters let through; the cursor goes to the first of them."""
        self._select()
        if self.matches:
            self.slider.value = self.matches[0] + 1
        self._moved()

    def _select(self) -> None:
        """``matches`` for the filters set now (None when none is), and how many they are."""
        chosen = {"status": self.status_filter.value or None, "phase": self.phase_filter.value or None,
                  "attempt": self.attempt_filter.value or None, "pattern": self.pattern.value.strip() or None}
        if all(value is None for value in chosen.values()):
            self.matches, self.matched.value = None, ""
            return
        self.matches = self.calls.select(**chosen)
        self.matched.value = (f'<span class="muted">{len(self.matches):,} of {len(self.calls):,} calls match</span>'
                              if self.matches else '<span class="muted">no call matches</span>')

    def _first_failed(self) -> None:
        index = self.calls.first("failed")
        if index is not None:
            self.slider.value = index + 1

    def _find(self) -> None:
        text = self.jump.value
        if not text.strip():
            self.found.value = ""
            return
        index = self.calls.find(text, self.slider.value - 1)
        if index is None:
            self.found.value = f'<span class="muted">no call has seq or label {shown(text, 60)}</span>'
            return
        self.found.value = ""
        self.slider.value = index + 1

    def _moved(self) -> None:
        """Show the call under the cursor: only small pictures and texts change, whatever the run's length."""
        if not len(self.calls):
            return
        index = self.slider.value - 1
        call = self.current = self.calls.call(index)
        if self.matches is None:
            self.previous_button.disabled = index == 0
            self.next_button.disabled = index == len(self.calls) - 1
        else:
            self.previous_button.disabled = self._next_match(index, -1) is None
            self.next_button.disabled = self._next_match(index, 1) is None
        self.cursor.value = cursor_svg(self.picture.layout, call.span)
        self.call.value = _call_html(call, len(self.calls))
        self.nearby.value = _nearby_html(self.calls, index)
        self.progress.value = _progress_html(self.calls, call)


ANY = ("any", "")
"""The first choice of every filter: no filter (a dropdown cannot show None as a choice: it reads as none)."""


def _offer(menu: widgets.Dropdown, choices: list[tuple[str, Any]]) -> None:
    """``any`` and ``choices`` in ``menu``, the choice made kept while it is still offered (a followed run grows
    new phases and outcomes under a filter already set)."""
    options = [ANY, *choices]
    if list(menu.options) != options:
        chosen = menu.value
        menu.options = options
        menu.value = chosen if any(value == chosen for _, value in options) else ""


def _budget_html(record: RunRecord | None) -> str:
    """The budget the run stands under, what it spent of it and by phase (nothing for a bare timeline)."""
    if record is None:
        return ""
    by_phase = {str(phase): int(tokens) for phase, tokens in record.spent_by_phase().items()}
    text = budget_text(record.budget, record.usage.cumulative.counted, by_phase)
    over = record.budget is not None and record.usage.cumulative.counted > record.budget
    return (f'<div class="alp"><span class="muted">budget</span> '
            f'{badge("over", "bad") + " " if over else ""}{esc(text)}</div>')


def _outcome_badge(outcome: CallOutcome) -> str:
    """The outcome in the timeline's colour for it, so the call reads the same here as on the picture."""
    return badge(outcome, "outcome", OUTCOME_STYLES[outcome][0])


def _json_block(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return f'<pre style="margin:0;{WRAPPED};max-height:16em;overflow:auto">{shown_block(text, limit)}</pre>'


def _timing(start: float, end: float) -> str:
    return f"at {seconds(start)}" + (f" for {seconds(end - start)}" if end > start else "")


def _call_html(call: RunCall, count: int) -> str:
    """The call: where it is, how it went, what it cost, and its prompt, schema and value (or its error)."""
    span = call.span
    seq = "" if call.seq is None else f" · journal seq {call.seq}"
    cost = f"{call.tokens:,} tokens"
    if call.outcome == "cached" and call.answer_tokens is not None:
        cost += f" (its answer cost {call.answer_tokens:,} when it was made)"
    head = (f"<div><b>call {call.position:,} of {count:,}</b> {_outcome_badge(call.outcome)} "
            f"<code>{shown(call.label)}</code></div>"
            f'<div class="muted">phase <b>{shown(call.phase, 60)}</b> · attempt {span.attempt}{seq} · '
            f"{esc(_timing(span.start, span.end))} · {esc(cost)}</div>"
            f"<div>{esc(OUTCOME_SAYS[call.outcome])}</div>")
    if call.error:
        head += f'<div><b>error</b> <code style="{WRAPPED}">{shown_block(call.error, VALUE_CHARS)}</code></div>'
    if call.outcome in KEPT and call.entry is not None:
        schema = ('<span class="muted">none: free text</span>' if call.schema is None else
                  f"<details><summary>JSON Schema</summary>{_json_block(call.schema, SCHEMA_CHARS)}</details>")
        rows = [("prompt", _json_block(call.prompt, PROMPT_CHARS) if call.prompt is not None else "—"),
                ("schema", schema), ("value", _json_block(call.value, VALUE_CHARS))]
        head += ('<table style="width:100%">' + "".join(f"<tr><th>{name}</th><td>{cell}</td></tr>"
                                                       for name, cell in rows) + "</table>")
    return f'<div class="alp" style="flex:1 1 28em;max-width:40em;min-width:0;margin-right:1em">{head}</div>'


def _nearby_html(calls: RunCalls, index: int) -> str:
    """The calls around the current one, which is marked."""
    rows = []
    for near in range(max(index - NEARBY, 0), min(index + NEARBY + 1, len(calls))):
        call = calls.call(near)
        cells = [f"{call.position:,}", "" if call.seq is None else str(call.seq),
                 f"<code>{shown(call.label, 32)}</code>", shown(call.phase, 20), _outcome_badge(call.outcome),
                 f"{call.tokens:,}"]
        rows.append([f"<b>▸ {cell}</b>" if column == 0 else f"<b>{cell}</b>" for column, cell in enumerate(cells)]
                    if near == index else cells)
    return (f'<div class="alp" style="white-space:nowrap;overflow-x:auto">'
            f'{table(("call", "seq", "label", "phase", "outcome", "tokens"), rows)}</div>')


def _progress_html(calls: RunCalls, call: RunCall) -> str:
    """Each phase's calls up to and including the current one, done / cached / failed / ..., of its total."""
    outcomes = [outcome for outcome in calls.outcomes if outcome not in ANSWERED]
    phases = list(calls.phases[:PROGRESS_PHASES])
    if call.phase not in phases:
        phases.append(call.phase)
    rows = []
    for phase in phases:
        so_far, total = calls.done_before(phase, call.position), calls.totals[phase]
        name = f"<b>{shown(phase, 40)}</b>" if phase == call.phase else shown(phase, 40)
        rows.append((name, f"{so_far.total():,} of {total.total():,}", f"{sum(so_far[o] for o in ANSWERED):,}",
                     *(f"{so_far[outcome]:,}" for outcome in outcomes)))
    more = len(calls.phases) - len(phases)
    rest = f'<div class="muted">and {more:,} more phases</div>' if more > 0 else ""
    return (f'<div class="alp"><div class="muted">progress up to call {call.position:,}</div>'
            f'{table(("phase", "calls", "done", *outcomes), rows)}{rest}</div>')

"""``RunViewer``: a finished (or stopped) run stepped through call by call, after the fact.

The run is read once; nothing is ever run again. The timeline is drawn once, and a cursor is laid over it in a
picture of its own that holds nothing else, so a move redraws only small things: the cursor, the call under it,
its neighbours and the progress of each phase up to it. A move costs the same on a run of ten calls or of a
hundred thousand.
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as widgets

from alp_nb.replay.locate import record_of
from alp_nb.replay.run_calls import RunCall, RunCalls
from alp_nb.replay.timeline import CallOutcome, Timeline
from alp_nb.viz.html import STYLE, badge, esc, table
from alp_nb.viz.terminal import plain_line
from alp_nb.viz.timeline_layout import OUTCOME_STYLES, seconds
from alp_nb.viz.timeline_picture import RunTimeline
from alp_nb.viz.timeline_svg import cursor_svg

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
DONE = ("live", "retried")
ANSWERED = ("live", "retried", "cached")
"""The outcomes of calls whose answer a journal line keeps (a cached call's from an earlier attempt)."""
"""What the run's snapshot counts as a phase's ``done`` calls."""
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
        self.calls: RunCalls = RunCalls(run) if isinstance(run, Timeline) else record_of(run).calls
        self.picture = RunTimeline(self.calls.timeline)
        count = len(self.calls)
        self.current: RunCall | None = None
        self.slider = widgets.IntSlider(value=1, min=1, max=max(count, 1), description="call", disabled=not count,
                                        layout=widgets.Layout(width="46em"))
        self.previous_button = widgets.Button(icon="chevron-left", tooltip="the call before",
                                              layout=widgets.Layout(width="3em"), disabled=True)
        self.next_button = widgets.Button(icon="chevron-right", tooltip="the call after",
                                          layout=widgets.Layout(width="3em"), disabled=count < 2)
        self.jump = widgets.Text(description="find", placeholder="journal seq, or label", continuous_update=False,
                                 layout=widgets.Layout(width="22em"))
        self.find_button = widgets.Button(description="next match", icon="search", disabled=not count)
        self.found = widgets.HTML()
        self.timeline = widgets.HTML(f"{STYLE}<style>.{CURSOR_CLASS}{{pointer-events:none}}</style>"
                                     f"{self.picture.to_svg()}",
                                     layout=widgets.Layout(grid_area="picture"))
        self.cursor = widgets.HTML(layout=widgets.Layout(grid_area="picture"))
        self.cursor.add_class(CURSOR_CLASS)
        self.call = widgets.HTML()
        self.nearby = widgets.HTML()
        self.progress = widgets.HTML()
        self.slider.observe(lambda _: self._moved(), names="value")
        self.previous_button.on_click(lambda _: self._step(-1))
        self.next_button.on_click(lambda _: self._step(1))
        self.jump.observe(lambda _: self._find(), names="value")
        self.find_button.on_click(lambda _: self._find())
        picture = widgets.GridBox([self.timeline, self.cursor], layout=widgets.Layout(
            grid_template_areas='"picture"', overflow="auto", width="100%"))
        super().__init__([
            widgets.HBox([self.previous_button, self.slider, self.next_button]),
            widgets.HBox([self.jump, self.find_button, self.found]),
            picture,
            # wraps, so that in a narrow notebook the neighbours go under the call instead of past the edge
            widgets.HBox([self.call, widgets.VBox([self.nearby, self.progress])],
                         layout=widgets.Layout(flex_flow="row wrap", width="100%")),
        ], layout=widgets.Layout(max_width="100%"))
        self.add_class("alp-run-viewer")
        self.call.add_class("alp-run-viewer-call")  # a stable hook for the page (tests/test_browser.py)
        if count:
            self._moved()
        else:
            self.call.value = '<div class="alp muted">this run made no agent calls</div>'

    def __repr__(self) -> str:
        """What a page without the widget shows (GitHub, nbviewer): the call under the cursor in words."""
        call = self.current
        where = f"call {call.position} of {len(self.calls)}: {call.label} ({call.outcome})" if call else "no calls"
        return plain_line(f"RunViewer: {where}")

    def _step(self, by: int) -> None:
        self.slider.value = min(max(self.slider.value + by, self.slider.min), self.slider.max)

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
        index = self.slider.value - 1
        call = self.current = self.calls.call(index)
        self.previous_button.disabled = index == 0
        self.next_button.disabled = index == len(self.calls) - 1
        self.cursor.value = cursor_svg(self.picture.layout, call.span)
        self.call.value = _call_html(call, len(self.calls))
        self.nearby.value = _nearby_html(self.calls, index)
        self.progress.value = _progress_html(self.calls, call)


def _outcome_badge(outcome: CallOutcome) -> str:
    """The outcome in the timeline's colour for it, so the call reads the same here as on the picture."""
    return badge(outcome, "outcome", OUTCOME_STYLES[outcome][0])


def _json_block(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return f'<pre style="margin:0;white-space:pre-wrap;max-height:16em;overflow:auto">{shown_block(text, limit)}</pre>'


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
        head += f"<div><b>error</b> <code>{shown_block(call.error, VALUE_CHARS)}</code></div>"
    if call.outcome in ANSWERED and call.entry is not None:
        schema = ('<span class="muted">none: free text</span>' if call.schema is None else
                  f"<details><summary>JSON Schema</summary>{_json_block(call.schema, SCHEMA_CHARS)}</details>")
        rows = [("prompt", _json_block(call.prompt, PROMPT_CHARS) if call.prompt is not None else "—"),
                ("schema", schema), ("value", _json_block(call.value, VALUE_CHARS))]
        head += ('<table style="width:100%">' + "".join(f"<tr><th>{name}</th><td>{cell}</td></tr>"
                                                       for name, cell in rows) + "</table>")
    return f'<div class="alp" style="width:40em;margin-right:1em">{head}</div>'


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
    outcomes = [outcome for outcome in calls.outcomes if outcome not in DONE]
    phases = list(calls.phases[:PROGRESS_PHASES])
    if call.phase not in phases:
        phases.append(call.phase)
    rows = []
    for phase in phases:
        so_far, total = calls.done_before(phase, call.position), calls.totals[phase]
        name = f"<b>{shown(phase, 40)}</b>" if phase == call.phase else shown(phase, 40)
        rows.append((name, f"{so_far.total():,} of {total.total():,}", f"{sum(so_far[o] for o in DONE):,}",
                     *(f"{so_far[outcome]:,}" for outcome in outcomes)))
    more = len(calls.phases) - len(phases)
    rest = f'<div class="muted">and {more:,} more phases</div>' if more > 0 else ""
    return (f'<div class="alp"><div class="muted">progress up to call {call.position:,}</div>'
            f'{table(("phase", "calls", "done", *outcomes), rows)}{rest}</div>')

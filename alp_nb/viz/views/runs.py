"""Views of workflow runs: a run or its snapshot (status badge, usage this attempt and cumulative, budget, phases
with call counts, last log lines), journal rows as text, the registry of saved workflows, and the terminal's
progress line. HTML and plain text; workflow names, prompts, values and log lines are
untrusted: HTML escapes them, plain text replaces control characters (a log line must not drive the terminal).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from alp_nb.base.text import clip
from alp_nb.runtime.snapshot import run_budget
from alp_nb.viz.html import TONE_COLOURS, WRAPPED, badge, block, esc, status_badge, table
from alp_nb.viz.terminal import plain

if TYPE_CHECKING:
    from alp_nb.replay.timeline import CallSpan
    from alp_nb.runtime.meta import WorkflowMeta
    from alp_nb.runtime.run import WorkflowRun
    from alp_nb.runtime.saved_workflows import WorkflowRegistry
    from alp_nb.runtime.snapshot import Attempt, PhaseProgress, RunSnapshot, Usage

LOG_LINES = 10
CELL_CHARS = 80
RESULT_CHARS = 300
PHASE_CHARS = 40
BAR_WIDTH = 24
REGISTRY_HEADERS = ("name", "description", "phases", "args")


def shortened(value: Any, limit: int = CELL_CHARS) -> str:
    """A value as one short line for a table's cell: strings as they are, anything else as JSON, cut with ``…``."""
    return clip(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str), limit)


def usage_text(usage: Usage) -> str:
    """``10 agents, 250 tokens``, and ``, 2 asked and never answered (40 tokens held)`` when some calls were."""
    unknown = f", {usage.unanswered} asked and never answered ({usage.reserved} tokens held)" if usage.unanswered \
        else ""
    return f"{usage.agents} agents, {usage.tokens} tokens{unknown}"


def budget_text(budget: int | None, spent: int, by_phase: Mapping[str, int] | None = None) -> str:
    """``150 tokens · 186 spent, 36 over`` (or ``no token budget · 186 tokens spent``), and the spending of each
    phase when given: a run's budget as a reader wants it in one line."""
    if budget is None:
        head = f"no token budget · {spent:,} tokens spent"
    else:
        left = budget - spent
        head = f"{budget:,} token{'s' if budget != 1 else ''} · {spent:,} spent, " + (
            f"{left:,} left" if left >= 0 else f"{-left:,} over")
    if by_phase:
        head += " · by phase: " + ", ".join(f"{shortened(phase, PHASE_CHARS)} {tokens:,}"
                                           for phase, tokens in by_phase.items())
    return head


def attempt_text(attempt: Attempt) -> str:
    return f"#{attempt.number} {attempt.status} ({attempt.usage.agents} run, {attempt.cached} cached)"


def phase_text(phase: PhaseProgress) -> str:
    """``N calls: d done, c cached, f failed`` and, when some were, ``, k cancelled``."""
    cancelled = f", {phase.cancelled} cancelled" if phase.cancelled else ""
    return f"{phase.calls} calls: {phase.done} done, {phase.cached} cached, {phase.failed} failed{cancelled}"


# --- a run and its snapshot -------------------------------------------------------------------------


def snapshot_lines(snapshot: RunSnapshot, error: str | None = None,
                   by_phase: Mapping[str, int] | None = None) -> list[str]:
    """The ``alp-nb workflow show`` layout: a label column of ten characters, then the value; the failure reason
    (``error``, else the snapshot's) right under the status; the budget, for a run that has one, with what each
    phase spent when ``by_phase`` says."""
    usage = snapshot.usage
    error = snapshot.error if error is None else error
    budget = run_budget(snapshot)
    lines = [
        f"RUN        {snapshot.run_id}",
        f"WORKFLOW   {plain(snapshot.workflow_name)}",
        f"STATUS     {snapshot.status}",
        *([f"ERROR      {plain(error)}"] if error else []),
        f"USAGE      this attempt {usage_text(usage.attempt)} · cumulative {usage_text(usage.cumulative)}",
        *([f"BUDGET     {plain(budget_text(budget, usage.cumulative.counted, by_phase))}"] if budget else []),
        f"ATTEMPTS   {' · '.join(attempt_text(attempt) for attempt in snapshot.attempts) or 'none'}",
    ]
    width = max((len(plain(shortened(phase.title, PHASE_CHARS))) for phase in snapshot.phases), default=0)
    for number, phase in enumerate(snapshot.phases):
        label = "PHASES" if number == 0 else ""
        lines.append(f"{label:<10} {plain(shortened(phase.title, PHASE_CHARS)):<{width}}  {phase_text(phase)}")
    logs = snapshot.logs[-LOG_LINES:]
    lines += [f"{'LOG' if number == 0 else '':<10} {plain(shortened(line, RESULT_CHARS))}"
              for number, line in enumerate(logs)]
    return lines


def snapshot_text(snapshot: RunSnapshot) -> str:
    return "\n".join(snapshot_lines(snapshot))


def error_html(error: str | None) -> str:
    """The failure reason, in red under the status line (nothing when there is none)."""
    if not error:
        return ""
    return (f'<div style="border-left:4px solid {TONE_COLOURS["bad"]};padding:2px 8px;margin:4px 0">'
            f'{badge("error", "bad")} '
            f'<code style="{WRAPPED}">{esc(error)}</code></div>')


def snapshot_fragment(snapshot: RunSnapshot, error: str | None = None,
                      by_phase: Mapping[str, int] | None = None) -> str:
    """Status (with the failure reason, ``error`` or else the snapshot's, right under it), attempts, usage, phases
    and the last log lines."""
    usage = snapshot.usage
    error = snapshot.error if error is None else error
    budget = run_budget(snapshot)
    unknown = usage.cumulative.unanswered > 0  # a column only when some call was asked and never answered
    usage_rows = [(esc(name), esc(part.agents), esc(part.tokens),
                   *((esc(f"{part.unanswered} ({part.reserved} tokens held)"),) if unknown else ()))
                  for name, part in (("this attempt", usage.attempt), ("cumulative", usage.cumulative))]
    phase_rows = [(f"<code>{esc(phase.title)}</code>", esc(phase.calls), esc(phase.done), esc(phase.cached),
                   esc(phase.failed), esc(phase.cancelled)) for phase in snapshot.phases]
    attempts = " · ".join(esc(attempt_text(attempt)) for attempt in snapshot.attempts) or "none"
    parts = [
        (f"<div><b>{esc(snapshot.workflow_name)}</b> <code>{esc(snapshot.run_id)}</code> "
         f"{status_badge(snapshot.status)}</div>"),
        error_html(error),
        f'<div><span class="muted">attempts</span> {attempts}</div>',
        table(("usage", "agents", "tokens", *(("asked, never answered",) if unknown else ())), usage_rows),
        *([f'<div><span class="muted">budget</span> {esc(budget_text(budget, usage.cumulative.counted, by_phase))}'
           "</div>"] if budget else []),
    ]
    if phase_rows:
        parts.append(table(("phase", "calls", "done", "cached", "failed", "cancelled"), phase_rows))
    logs = snapshot.logs[-LOG_LINES:]
    if logs:
        shown = f"last {len(logs)} of {len(snapshot.logs)}" if len(logs) < len(snapshot.logs) else str(len(logs))
        parts.append(f'<div class="muted">log ({esc(shown)})</div>'
                     f'<pre style="margin:2px 0">{esc(chr(10).join(logs))}</pre>')
    return "".join(parts)


def snapshot_html(snapshot: RunSnapshot) -> str:
    return block(snapshot_fragment(snapshot))


def run_text(run: WorkflowRun) -> str:
    launched = run.launched
    lines = snapshot_lines(run.task, run.error)
    lines.insert(1, f"TASK       {launched.task_id} (attempt {launched.attempt}"
                    f"{', resumed' if launched.resumed else ''})")
    if run.status == "completed":
        lines.append(f"RESULT     {plain(shortened(run.result, RESULT_CHARS))}")
    return "\n".join(lines)


def run_html(run: WorkflowRun) -> str:
    launched = run.launched
    resumed = " (resumed)" if launched.resumed else ""
    parts = [snapshot_fragment(run.task, run.error),
             (f'<div class="muted">attempt {esc(launched.attempt)}{resumed} · output '
              f"<code>{esc(launched.output_file)}</code></div>")]
    if run.status == "completed":
        result = esc(shortened(run.result, RESULT_CHARS))
        parts.append(f'<div><span class="muted">result</span> <code>{result}</code></div>')
    return block("".join(parts))


# --- journal rows as text ----------------------------------------------------------------------------


def journal_lines(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Journal rows as text: a column per header, aligned, then each row's last two cells as "prompt → value"
    (too wide to align); nothing for no rows."""
    if not rows:
        return []
    aligned = len(headers)
    widths = [max(len(header), *(len(row[column]) for row in rows)) for column, header in enumerate(headers)]
    return ["  ".join(f"{header:<{width}}" for header, width in zip(headers, widths, strict=True)) + "  prompt → value",
            *("  ".join(f"{cell:<{width}}" for cell, width in zip(row[:aligned], widths, strict=True))
              + f"  {row[aligned]} → {row[aligned + 1]}" for row in rows)]


# --- the registry of saved workflows ----------------------------------------------------------------


def args_text(meta: WorkflowMeta) -> str:
    """The args a workflow declares, ``name (type, required): description`` each; empty if it declares none."""
    schema = meta.args
    if schema is None:
        return ""
    properties = schema.get("properties") or {}
    if not properties:
        return "any JSON object"
    required = set(schema.get("required") or ())
    parts = []
    for name, spec in properties.items():
        spec = spec if isinstance(spec, Mapping) else {}
        kind = spec.get("type", "any")
        kind = "|".join(kind) if isinstance(kind, tuple | list) else str(kind)
        facts = f"{kind}, required" if name in required else kind
        about = spec.get("description")
        parts.append(f"{name} ({facts})" + (f": {about}" if about else ""))
    return "; ".join(parts)


def workflow_registry_text(registry: WorkflowRegistry) -> str:
    metas = registry.list()
    if not metas:
        return "no saved workflows"
    width = max(len(plain(meta.name)) for meta in metas)
    lines = []
    for meta in metas:
        declared = args_text(meta)
        lines.append(f"{plain(meta.name):<{width}}  {plain(meta.description)}  [{plain(' → '.join(meta.phases))}]"
                     + (f"  args: {plain(declared)}" if declared else ""))
    return "\n".join(lines)


def workflow_registry_html(registry: WorkflowRegistry) -> str:
    none = '<span class="muted">—</span>'
    rows = [(f"<code>{esc(meta.name)}</code>", esc(meta.description), esc(" → ".join(meta.phases)) or none,
             esc(args_text(meta)) or none) for meta in registry.list()]
    return block(f"<div><b>Saved workflows</b> ({len(rows)})</div>" + table(REGISTRY_HEADERS, rows))


# --- live progress in a terminal --------------------------------------------------------------------


class CallTally:
    """Calls seen in a run's live events: started (cached ones included), finished, retried, and the current
    phase."""

    def __init__(self) -> None:
        self.started = 0
        self.finished = 0
        self.cached = 0
        self.failed = 0
        self.cancelled = 0
        self.retried = 0
        self.phase: str | None = None

    def add(self, event: dict[str, Any]) -> None:
        if event.get("type") == "workflow_phase":
            self.phase = event.get("title")
        if event.get("type") != "workflow_agent":
            return
        status = event.get("status")
        if status in ("started", "cached"):
            self.started += 1
        if status in ("done", "cached", "failed", "cancelled"):
            self.finished += 1
        self.cached += status == "cached"
        self.failed += status == "failed"
        self.cancelled += status == "cancelled"
        self.retried += status == "retry"

    def read(self, spans: Sequence[CallSpan]) -> None:
        """Count a followed run's calls as its files hold them now (its timeline's spans: no events are seen),
        never fewer than counted before: a reading may lag one that came earlier."""
        def count(*outcomes: str) -> int:
            return sum(span.outcome in outcomes for span in spans)

        self.started = max(self.started, len(spans))
        self.finished = max(self.finished, len(spans) - count("unfinished"))
        self.cached = max(self.cached, count("cached"))
        self.failed = max(self.failed, count("failed"))
        self.cancelled = max(self.cancelled, count("cancelled"))
        self.retried = max(self.retried, count("retried"))
        self.phase = spans[-1].phase if spans else self.phase

    @property
    def details(self) -> str:
        """``2 cached, 1 failed``: the finished calls that were not simply done, empty when there are none."""
        return ", ".join(f"{count} {name}" for count, name in ((self.cached, "cached"), (self.failed, "failed"),
                                                                (self.cancelled, "cancelled")) if count)


def progress_bar(tally: CallTally, width: int = BAR_WIDTH) -> str:
    """``[#####·····] 5/9 calls (2 cached) · Verify``: finished calls of those started so far."""
    filled = width * tally.finished // tally.started if tally.started else 0
    details = tally.details
    phase = f" · {plain(shortened(tally.phase, PHASE_CHARS))}" if tally.phase else ""
    return (f"[{'#' * filled}{'·' * (width - filled)}] {tally.finished}/{tally.started} calls"
            f"{f' ({details})' if details else ''}{phase}")


def tally_line(tally: CallTally) -> str:
    """``calls    12 made: 9 done, 2 cached, 1 failed, 0 cancelled; 1 retried``: a run's calls in one line, for a
    log that has no line per call (calls still out when the run stopped are counted too)."""
    done = tally.finished - tally.cached - tally.failed - tally.cancelled
    ended = ((done, "done"), (tally.cached, "cached"), (tally.failed, "failed"), (tally.cancelled, "cancelled"))
    counts = ", ".join(f"{count:,} {name}" for count, name in ended)
    more = [f"{count:,} {name}" for count, name in ((tally.retried, "retried"),
                                                     (tally.started - tally.finished, "never finished")) if count]
    return f"calls    {tally.started:,} made: {counts}" + (f"; {', '.join(more)}" if more else "")


def event_line(event: dict[str, Any]) -> str | None:
    """One plain line for a phase, a log line or a finished (or retried) call, each text clipped (a label may be
    20,000 characters long); None for the rest."""
    kind = event.get("type")
    if kind == "workflow_phase":
        return f"phase    {plain(shortened(event.get('title')))}"
    if kind == "workflow_log":
        return f"log      {plain(shortened(event.get('message'), RESULT_CHARS))}"
    if kind == "workflow_agent" and event.get("status") != "started":
        error = f"  {plain(shortened(event['error'], RESULT_CHARS))}" if event.get("error") else ""
        return f"{event.get('status', ''):<8} {plain(shortened(event.get('label')))}{error}"
    return None

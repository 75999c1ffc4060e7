"""``export_run``: one run as one HTML file to keep or send, read in any browser with nothing else.

The page holds a header (status, the failure reason, usage, the budget and what each phase spent of it), the
timeline, a table of the calls that a small script filters by outcome, phase and text, the plan of a resume, and,
for a fork, its comparison with the run it came from. It is self-contained and offline: no file, font, image or
script comes from anywhere else, and its Content-Security-Policy lets the browser fetch nothing and run only the
page's own script (pinned by its hash), so even markup that escaped escaping could not reach out or run.

Everything from the run is untrusted and reaches the page through ``html.esc``, as text or as an attribute; the
script holds no data at all: it reads the rows' ``data-outcome`` and ``data-phase`` attributes and their text.
A run may hold a hundred thousand calls: the table keeps at most ``PAGE_CALLS`` of them (every call that did not
simply end live or cached first) and each text at most ``CELL_CHARS`` characters, and the page says so.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alp_nb.base.atomic_file import write_atomic
from alp_nb.base.errors import AlpError
from alp_nb.replay.compare import compare_runs
from alp_nb.replay.locate import record_of
from alp_nb.replay.plan import plan_resume
from alp_nb.runtime.journal.outcomes import CALL_OUTCOMES
from alp_nb.viz.errors import VizError
from alp_nb.viz.html import esc
from alp_nb.viz.models.timeline_layout import OUTCOME_STYLES
from alp_nb.viz.pictures.timeline_picture import RunTimeline
from alp_nb.viz.views.plans import resume_plan_html
from alp_nb.viz.views.records import MISSING, S16_TOKENS, tokens_text
from alp_nb.viz.views.replays import run_comparison_html
from alp_nb.viz.views.runs import attempt_text, budget_text, shortened

if TYPE_CHECKING:
    from alp_nb.replay.record import RunRecord
    from alp_nb.runtime.saved_workflows import WorkflowRegistry

PAGE_CALLS = 5_000
"""The most calls the table holds: a browser filters 5,000 rows at once as you type, not 100,000."""
CELL_CHARS = 400
"""The most characters of a prompt, answer or error a cell holds (a click on its row shows them all)."""
LABEL_CHARS = 120
SIMPLE = ("live", "cached")
"""The outcomes a long run's table may leave out: every other call is kept."""

SCRIPT = """(() => {
  "use strict";
  const table = document.getElementById("calls-table");
  const rows = Array.from(table.tBodies[0].rows);
  const texts = rows.map((row) => row.textContent.toLowerCase());
  const search = document.getElementById("filter-text");
  const outcome = document.getElementById("filter-outcome");
  const phase = document.getElementById("filter-phase");
  const count = document.getElementById("filter-count");
  const none = document.getElementById("filter-none");
  function apply() {
    const needle = search.value.trim().toLowerCase();
    let shown = 0;
    rows.forEach((row, index) => {
      const keep = (!outcome.value || row.dataset.outcome === outcome.value)
        && (!phase.value || row.dataset.phase === phase.value)
        && (!needle || texts[index].includes(needle));
      row.hidden = !keep;
      shown += keep ? 1 : 0;
    });
    count.textContent = shown.toLocaleString("en") + " of " + rows.length.toLocaleString("en") + " calls shown";
    none.hidden = shown > 0;
  }
  [search, outcome, phase].forEach((control) => control.addEventListener("input", apply));
  table.tBodies[0].addEventListener("click", (event) => {
    const row = event.target.closest("tr");
    if (row) row.classList.toggle("open");
  });
  apply();
})();"""
"""The page's one script: it filters the call table and opens a clicked row. It reads the DOM and holds no data."""
SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
POLICY = ("default-src 'none'; style-src 'unsafe-inline'; "
          f"script-src 'sha256-{SCRIPT_HASH}'; base-uri 'none'; form-action 'none'")
"""Nothing may be fetched, and only ``SCRIPT`` may run."""

PAGE_STYLE = """
body{margin:0;background:#f6f7f9;color:#1f2328;font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1240px;margin:0 auto;padding:24px 28px 48px}
header{background:#fff;border-bottom:1px solid #d8dee4}
header .inner{max-width:1240px;margin:0 auto;padding:20px 28px 16px}
h1{font-size:24px;margin:0 8px 0 0;display:inline;vertical-align:middle}
h2{font-size:17px;margin:0 0 4px}
section{background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:16px 20px;margin:18px 0}
code,pre,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:12.5px}
.sub{color:#59636e;margin-top:6px}
.lead{color:#59636e;margin:0 0 12px}
.status{display:inline-block;vertical-align:middle;padding:1px 10px;border-radius:12px;color:#fff;font-weight:600}
.why{margin-top:14px;border-left:4px solid #c62828;background:#fdecea;padding:8px 12px;border-radius:0 6px 6px 0}
.why b{color:#b71c1c;margin-right:6px}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin-top:16px}
.fact{border:1px solid #d8dee4;border-radius:8px;padding:10px 14px;background:#fbfcfd}
.fact .name{color:#59636e;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.fact .value{font-size:20px;font-weight:600}
.fact .more{color:#59636e;font-size:12.5px}
.meter{height:8px;border-radius:4px;background:#e6e9ed;margin:6px 0 2px;overflow:hidden}
.meter span{display:block;height:100%}
.phases{margin-top:12px;border-collapse:collapse;border:1px solid #d8dee4;border-radius:8px;background:#fbfcfd}
.phases caption{text-align:left;color:#59636e;font-size:12px;text-transform:uppercase;letter-spacing:.04em;
padding:0 0 4px}
.phases td,.phases th{padding:3px 14px;text-align:left}
.phases th{color:#59636e;font-weight:500;font-size:12.5px;border-bottom:1px solid #d8dee4}
.phases td.n{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#59636e;font-size:13px;margin:6px 0}
.warn{border-left:4px solid #ef6c00;background:#fff4e5;padding:6px 12px;margin:6px 0;border-radius:0 6px 6px 0}
.picture{overflow-x:auto}
section .alp{max-width:none}
.controls{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:8px 0 10px}
.controls input,.controls select{font:inherit;padding:5px 8px;border:1px solid #c4ccd4;border-radius:6px;
background:#fff}
.controls input{min-width:280px;flex:1 1 280px}
#filter-count{color:#59636e;margin-left:auto}
.calls{width:100%;border-collapse:collapse;table-layout:fixed}
.calls th{position:sticky;top:0;background:#eef1f4;text-align:left;font-weight:600;font-size:12.5px;
padding:6px 8px;border-bottom:1px solid #d8dee4}
.calls td{padding:5px 8px;border-bottom:1px solid #eef1f4;vertical-align:top;overflow:hidden;
text-overflow:ellipsis;white-space:nowrap}
.calls tbody tr{cursor:pointer}
.calls tbody tr:hover{background:#f6f8fa}
.calls tr.open td{white-space:pre-wrap;overflow-wrap:anywhere}
.calls tr.open{background:#fffbe6}
.calls td.n{text-align:right;font-variant-numeric:tabular-nums}
.calls .error{color:#b71c1c}
.chip{display:inline-block;padding:0 8px;border-radius:10px;color:#fff;font-size:12px;font-weight:600}
.muted{color:#59636e}
footer{color:#59636e;font-size:12.5px;text-align:center;margin-top:24px}
"""
STATUS_COLOURS = {"completed": "#2e7d32", "failed": "#c62828", "cancelled": "#ef6c00", "interrupted": "#ef6c00",
                  "running": "#1565c0"}
COLUMNS = (("#", "4%"), ("seq", "4.5%"), ("attempt", "5.5%"), ("phase", "9%"), ("outcome", "8%"),
           ("label", "17%"), ("tokens", "6%"), ("prompt", "23%"), ("answer or error", "23%"))


def export_run(run: Any, path: str | os.PathLike[str], *, force: bool = False,
               registry: WorkflowRegistry | None = None) -> Path:
    """Write ``run`` (a RunRecord, a WorkflowRun, ``(RunStore, run_id)`` or a run id in ``./.alp-runs``) to ``path``
    as one self-contained, offline HTML page, and return the path. ``registry`` holds the workflow the resume plan
    runs (default: the runtime's). Written whole or not at all; ``VizError`` ``EXPORT_EXISTS`` when something is
    at ``path`` (unless ``force``), ``EXPORT_INTO_STORE`` for a path in the run's store, ``EXPORT_UNWRITABLE`` when
    it cannot be written."""
    record = record_of(run)
    target = Path(path)
    # realpath, not Path.resolve, which raises RuntimeError on a symlink loop (`ln -s loop loop`): the loop is
    # then refused below as a folder that is not there, or a file that is
    if os.path.dirname(os.path.realpath(target)) == os.path.realpath(record.store.root):
        raise VizError("EXPORT_INTO_STORE", f"{target} is in the run store {record.store.root}, which holds the "
                       "runs' own files; write the page elsewhere")
    if not force and os.path.lexists(target):
        raise VizError("EXPORT_EXISTS", f"{target} already exists; choose another file, or replace it with --force "
                       "(force=True)")
    if not target.parent.is_dir():
        raise VizError("EXPORT_UNWRITABLE", f"{target}: cannot write: no such directory {target.parent}")
    page = run_page(record, registry=registry)
    try:
        write_atomic(target, page, mode=0o644)
    except OSError as error:
        raise VizError("EXPORT_UNWRITABLE", f"{target}: cannot write ({error.strerror or error})") from None
    return target


def run_page(record: RunRecord, *, registry: WorkflowRegistry | None = None) -> str:
    """The page ``export_run`` writes, as text."""
    snapshot = record.snapshot
    title = f"{snapshot.workflow_name} · {record.run_id} · {record.status}"
    sections = [_timeline(record), _calls(record), _plan(record, registry)]
    if snapshot.fork is not None:
        sections.append(_fork(record, snapshot.fork.run_id))
    exported = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    read = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(record.read_at))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{PAGE_STYLE}</style></head><body>"
        f"{_header(record)}<main>{''.join(sections)}"
        f"<footer>Exported {esc(exported)} by alp_nb from the run store <code>{esc(record.store.root)}</code>, as the "
        f"run stood at {esc(read)}. One file, offline: it loads nothing from anywhere, and its one script only "
        f"filters the table.</footer></main><script>{SCRIPT}</script></body></html>\n")


# --- the header -------------------------------------------------------------------------------------------------


def _header(record: RunRecord) -> str:
    snapshot, calls = record.snapshot, record.calls
    colour = STATUS_COLOURS.get(record.status, "#1565c0")
    attempts = len(snapshot.attempts)
    parts = [f"<h1>{esc(snapshot.workflow_name)}</h1>"
             f'<span class="status" style="background:{colour}">{esc(record.status)}</span>',
             f'<div class="sub"><code>{esc(record.run_id)}</code> · {attempts} attempt{"s" if attempts != 1 else ""}'
             f'{_forked_from(record)}</div>']
    if record.error:
        parts.append(f'<div class="why"><b>Why it {"stopped" if record.status != "failed" else "failed"}</b>'
                     f'<span class="mono">{esc(record.error)}</span></div>')
    counts = _outcomes(record)
    made = ", ".join(f"{count:,} {outcome}" for outcome, count in counts.items()) or "none"
    facts = [_fact("calls", f"{len(calls):,}", made), _tokens_fact(record), _budget_fact(record),
             _fact("attempts", f"{attempts}", " · ".join(attempt_text(attempt) for attempt in snapshot.attempts)
                   or "none")]
    parts.append(f'<div class="facts">{"".join(facts)}</div>')
    parts.append(_phases(record))
    if record.source == "s16":
        parts.append(f'<p class="note">Written by the s16 reference runtime: {esc(S16_TOKENS)}; the tokens of its '
                     f"calls show {MISSING}.</p>")
    parts += [f'<div class="warn">{esc(warning)}</div>' for warning in record.warnings]
    return f'<header><div class="inner">{"".join(parts)}</div></header>'


def _forked_from(record: RunRecord) -> str:
    fork = record.snapshot.fork
    return "" if fork is None else f" · forked from <code>{esc(fork.run_id)}</code>"


def _outcomes(record: RunRecord) -> dict[str, int]:
    totals: Counter[str] = Counter()
    for counted in record.calls.totals.values():
        totals.update(counted)
    return {outcome: totals[outcome] for outcome in CALL_OUTCOMES if totals[outcome]}


def _fact(name: str, value: str, more: str, extra: str = "") -> str:
    return (f'<div class="fact"><div class="name">{esc(name)}</div><div class="value">{esc(value)}</div>{extra}'
            f'<div class="more">{esc(more)}</div></div>')


def _tokens_fact(record: RunRecord) -> str:
    """What the run spent in all its attempts (a reservation for calls asked and never answered included)."""
    usage, cumulative = record.usage, record.usage.cumulative
    more = f"{cumulative.agents:,} calls paid for · this attempt {usage.attempt.tokens:,} tokens"
    if cumulative.unanswered:
        more += f" · {cumulative.unanswered:,} asked and never answered ({cumulative.reserved:,} tokens held)"
    return _fact("tokens spent", f"{cumulative.counted:,}", more)


def _budget_fact(record: RunRecord) -> str:
    budget, spent = record.budget, record.usage.cumulative.counted
    if budget is None:
        return _fact("budget", "none", "the run's args set no token budget")
    used = spent / budget
    colour = "#c62828" if used > 1 else "#ef6c00" if used > 0.8 else "#2e7d32"
    meter = f'<div class="meter"><span style="width:{min(used, 1.0) * 100:.1f}%;background:{colour}"></span></div>'
    return _fact("budget", f"{used:.0%} used", budget_text(budget, spent), meter)


def _phases(record: RunRecord) -> str:
    """Each phase of the snapshot: the calls of its last attempt by how they ended, and the tokens its journal
    lines hold in all attempts (the caption says so when there were several)."""
    phases = record.snapshot.phases
    if not phases:
        return ""
    spent = {str(phase): int(tokens) for phase, tokens in record.spent_by_phase().items()}
    rows = "".join(
        f"<tr><td><code>{esc(shortened(phase.title, 60))}</code></td><td class='n'>{phase.calls:,}</td>"
        f"<td class='n'>{phase.done:,}</td><td class='n'>{phase.cached:,}</td><td class='n'>{phase.failed:,}</td>"
        f"<td class='n'>{phase.cancelled:,}</td><td class='n'>"
        f"{MISSING if record.source == 's16' else f'{spent.get(phase.title, 0):,}'}</td></tr>"
        for phase in phases)
    head = "".join(f"<th>{name}</th>" for name in ("phase", "calls", "done", "cached", "failed", "cancelled",
                                                    "tokens spent"))
    attempts = record.attempts
    caption = ("by phase" if len(attempts) <= 1 else  # the snapshot counts the calls of its last attempt
               f"by phase: the calls of attempt {attempts[-1].number}, the tokens of all {len(attempts)} attempts")
    return (f'<table class="phases"><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>")


# --- the sections -----------------------------------------------------------------------------------------------


def _section(key: str, title: str, lead: str, body: str) -> str:
    return f'<section id="{key}"><h2>{esc(title)}</h2><p class="lead">{lead}</p>{body}</section>'


def _timeline(record: RunRecord) -> str:
    lead = ("One bar per call, in a lane per phase, on the run's own clock (idle time between attempts left out); "
            "hover a bar for the call.")
    return _section("timeline", "Timeline", esc(lead),
                    f'<div class="picture">{RunTimeline(record.timeline).to_svg()}</div>')


def _calls(record: RunRecord) -> str:
    calls = record.calls
    kept = _kept(record)
    clipped = len(kept) < len(calls)
    outcomes = _outcomes(record)
    options = "".join(f'<option value="{esc(outcome)}">{esc(outcome)} ({count:,})</option>'
                      for outcome, count in outcomes.items())
    phases = _phase_counts(record)
    phase_options = "".join(f'<option value="{esc(phase)}">{esc(shortened(phase, 60))} ({count:,})</option>'
                            for phase, count in phases.items())
    controls = (
        '<div class="controls">'
        '<input id="filter-text" type="search" placeholder="Find in labels, prompts and answers" '
        'aria-label="find in labels, prompts and answers">'
        f'<select id="filter-outcome" aria-label="outcome"><option value="">every outcome</option>{options}</select>'
        f'<select id="filter-phase" aria-label="phase"><option value="">every phase</option>{phase_options}</select>'
        f'<span id="filter-count">{len(kept):,} of {len(kept):,} calls shown</span></div>')
    head = "".join(f'<th style="width:{width}">{esc(name)}</th>' for name, width in COLUMNS)
    rows = "".join(_row(record, index) for index in kept)
    notes = [f"Every call in the order it started. Click a row to read it whole; texts are cut at "
             f"{CELL_CHARS:,} characters."]
    if clipped:
        notable = sum(count for outcome, count in outcomes.items() if outcome not in SIMPLE)
        notes.append(f"This page holds {len(kept):,} of the run's {len(calls):,} calls: every one that did not simply "
                     f"end live or cached ({notable:,}), then the first of the others. "
                     f"<code>alp-nb runs show {esc(record.run_id)} --status live --page N</code> lists the rest.")
    lead = " ".join(notes)
    empty = '<p id="filter-none" class="note" hidden>No call matches these filters.</p>'
    table = (f'<table id="calls-table" class="calls"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
             f"{empty}")
    return _section("calls", "Calls", lead, controls + table)


def _kept(record: RunRecord) -> Sequence[int]:
    """The calls the table holds: all of them, or, past ``PAGE_CALLS``, every notable one, then the first others."""
    calls = record.calls
    if len(calls) <= PAGE_CALLS:
        return range(len(calls))
    notable = calls.select(status=[outcome for outcome in CALL_OUTCOMES if outcome not in SIMPLE])[:PAGE_CALLS]
    others = calls.select(status=SIMPLE)[:PAGE_CALLS - len(notable)]
    return sorted([*notable, *others])


def _phase_counts(record: RunRecord) -> dict[str, int]:
    return {phase: sum(counted.values()) for phase, counted in record.calls.totals.items()}


def _row(record: RunRecord, index: int) -> str:
    call = record.calls.call(index, whole_line=False)
    colour = OUTCOME_STYLES[call.outcome][0]
    answer = (f'<td class="error">{esc(_cut(call.error))}</td>' if call.error else
              f"<td>{esc(MISSING if call.value is None else _cut(call.value))}</td>")
    return (f'<tr data-outcome="{esc(call.outcome)}" data-phase="{esc(call.phase)}">'
            f"<td class='n'>{call.position:,}</td><td class='n'>{MISSING if call.seq is None else call.seq}</td>"
            f"<td class='n'>{call.attempt}</td><td>{esc(shortened(call.phase, 60))}</td>"
            f'<td><span class="chip" style="background:{colour}">{esc(call.outcome)}</span></td>'
            f"<td><code>{esc(shortened(call.label, LABEL_CHARS))}</code></td>"
            f"<td class='n'>{tokens_text(record, call.tokens)}</td>"
            f"<td>{esc(MISSING if call.prompt is None else _cut(call.prompt))}</td>{answer}</tr>")


def _cut(value: Any) -> str:
    """A text or a JSON value cut at ``CELL_CHARS``, its own line breaks kept (an open row shows them)."""
    text = value if isinstance(value, str) else shortened(value, CELL_CHARS)
    return text if len(text) <= CELL_CHARS else text[:CELL_CHARS - 1] + "…"


def _plan(record: RunRecord, registry: WorkflowRegistry | None) -> str:
    lead = (f"What <code>alp-nb workflow resume {esc(record.run_id)}</code> would do, worked out without running "
            "anything: each call served from the journal (cached) or asked again (live), and why.")
    if record.status == "completed":  # nothing to resume: no dry run of its every call for a page
        return _section("plan", "Resume plan", lead,
                        f'<p class="note">The run completed, so it needs no resume. <code>alp-nb workflow plan '
                        f"{esc(record.run_id)}</code> works out what one would do all the same.</p>")
    try:
        plan = plan_resume(record.run_id, store=record.store, registry=registry)
    except AlpError as refused:
        return _section("plan", "Resume plan", lead,
                        f'<div class="warn">No plan could be made: {esc(refused.message)}</div>')
    more = ""
    if plan.pages > 1:
        more = (f'<p class="note">The page shows the plan\'s first calls; <code>alp-nb workflow plan '
                f"{esc(record.run_id)}</code> prints all {len(plan.calls):,}.</p>")
    return _section("plan", "Resume plan", lead, resume_plan_html(plan) + more)


def _fork(record: RunRecord, parent: str) -> str:
    lead = f"This run is a fork of <code>{esc(parent)}</code>: the calls it changed, and both runs' timelines."
    try:
        comparison = compare_runs(parent, record, store=record.store)
    except AlpError as refused:
        return _section("fork", "Compared with the run it was forked from", lead,
                        f'<div class="warn">The run it was forked from cannot be read: {esc(refused.message)}</div>')
    return _section("fork", "Compared with the run it was forked from", lead, run_comparison_html(comparison))


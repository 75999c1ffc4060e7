"""Views of a replay (``alp_nb.replay``): a ``ReplaySession`` where it stands, one ``ReplayCall``, and a
``RunComparison`` of two runs (with both runs' timelines). A session or a comparison may hold a hundred thousand
calls: a view draws the last (or the differing) ``PAGE`` of them and says how many more. Every string from a
run or a script is untrusted: HTML escapes it (``html.esc``), plain text shows its control and invisible
characters (``terminal``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from alp_nb.viz.html import WRAPPED, badge, block, esc, status_badge, table
from alp_nb.viz.pictures.timeline_picture import run_timeline
from alp_nb.viz.terminal import plain_line
from alp_nb.viz.views.runs import shortened

if TYPE_CHECKING:
    from alp_nb.replay.compare import RunComparison
    from alp_nb.replay.session import Divergence, ReplayCall, ReplaySession

PAGE = 20
CALL_TONES = {"cached": "ok", "divergent": "bad", "missing": "warn", "failed": "bad"}
COMPARE_TONES = {"same": "ok", "changed value": "warn", "changed prompt": "warn", "only in a": "bad",
                 "only in b": "info"}
CALL_HEADERS = ("#", "status", "label", "phase", "tokens", "value", "where")
DIFF_CHARS = 2000


# --- a call -----------------------------------------------------------------------------------------------------


def _where(call: ReplayCall) -> str:
    if call.where is None:
        return "—"
    path, _, line = call.where.rpartition(":")
    return f"{path.rsplit('/', 1)[-1]}:{line}"


def _said(call: ReplayCall) -> str:
    """What the status means for this call, in words."""
    if call.status == "cached":
        return f"served from journal line {call.seq}"
    if call.status == "divergent":
        return f"the journal has `{call.label}` with another {call.changed}"
    if call.status == "failed":
        return f"failed: {call.error}"
    return call.note or "not in the journal: answered by a stand-in"


def replay_call_text(call: ReplayCall) -> str:
    lines = [f"CALL       #{call.index} {call.label} [{call.status}] {_said(call)}",
             f"WHERE      {call.where or '—'}", f"PROMPT     {shortened(call.prompt, 300)}",
             f"VALUE      {shortened(call.value, 300)}"]
    if call.diff:
        lines += ["DIFF", *(f"  {line}" for line in call.diff[:DIFF_CHARS].splitlines())]
    return "\n".join(plain_line(line) for line in lines)


def replay_call_html(call: ReplayCall) -> str:
    said = esc(shortened(_said(call), 200))
    head = (f"<b>#{call.index}</b> <code>{esc(shortened(call.label, 80))}</code> "
            f"{badge(call.status, CALL_TONES[call.status])} <span class='muted'>{said}</span>")
    rows = [("where", f"<code>{esc(call.where or '—')}</code>"),
            ("phase", esc(call.phase or "—")),
            ("prompt", f'<pre style="{WRAPPED}">{esc(shortened(call.prompt, 2000))}</pre>'),
            ("value", f'<pre style="{WRAPPED}">{esc(shortened(call.value, 2000))}</pre>')]
    if call.diff:
        rows.append(("diff", f"<pre>{esc(call.diff[:DIFF_CHARS])}</pre>"))
    body = "".join(f"<tr><th>{esc(name)}</th><td>{cell}</td></tr>" for name, cell in rows)
    return block(f"<div>{head}</div><table><tbody>{body}</tbody></table>")


# --- a session --------------------------------------------------------------------------------------------------


def _counts(session: ReplaySession) -> str:
    found: dict[str, int] = {}
    for call in session.calls:
        found[call.status] = found.get(call.status, 0) + 1
    return ", ".join(f"{count} {status}" for status, count in found.items()) or "no call yet"


def _divergence_line(divergence: Divergence) -> str:
    if divergence.kind == "changed" and divergence.call is not None:
        call = divergence.call
        return f"changed: #{call.index} `{call.label}` asks another {call.changed} (at {_where(call)})"
    entry = divergence.entry
    label = divergence.label if divergence.label is not None else divergence.key
    return f"not asked: `{label}` (journal line {entry.seq if entry is not None else '—'}) is no longer made"


def _ending(session: ReplaySession) -> str:
    if not session.finished:
        return f"paused at call {session.cursor}: step() makes the next"
    if session.status == "completed":
        return f"the script completed after {session.cursor} calls; result: {shortened(session.result, 300)}"
    return f"the script failed after {session.cursor} calls: {session.error}"


def replay_session_text(session: ReplaySession) -> str:
    lines = [f"REPLAY     {session.run_id} ({session.workflow_name}) {session.status}",
             f"CALLS      {_counts(session)}", f"NOW        {_ending(session)}"]
    lines += [f"DIVERGED   {_divergence_line(divergence)}" for divergence in session.divergences[:PAGE]]
    calls = session.calls[-PAGE:]
    if len(session.calls) > len(calls):
        lines.append(f"           … {len(session.calls) - len(calls):,} earlier calls")
    lines += [f"  #{call.index} [{call.status}] {shortened(call.label, 60)} = {shortened(call.value, 60)}"
              for call in calls]
    return "\n".join(plain_line(line) for line in lines)


def replay_session_html(session: ReplaySession) -> str:
    status = session.status if session.status != "replaying" else "running"
    head = (f"<b>Replay</b> <code>{esc(session.run_id)}</code> · {esc(session.workflow_name)} "
            f"{status_badge(status)} <span class='muted'>{esc(_counts(session))}</span>")
    parts = [f"<div>{head}</div>", f"<div>{esc(shortened(_ending(session), 400))}</div>"]
    divergences = session.divergences
    if divergences:
        items = "".join(f"<li>{esc(shortened(_divergence_line(divergence), 300))}</li>"
                        for divergence in divergences[:PAGE])
        more = f"<li>… {len(divergences) - PAGE:,} more</li>" if len(divergences) > PAGE else ""
        parts.append(f"<div>{badge('diverged', 'bad')} the script parts from the journal:</div><ul>{items}{more}</ul>")
    calls = session.calls[-PAGE:]
    if calls:
        earlier = len(session.calls) - len(calls)
        caption = f"the last {len(calls)} of {len(session.calls):,} calls" if earlier else f"{len(calls)} calls"
        rows = [(str(call.index), badge(call.status, CALL_TONES[call.status]),
                 f"<code>{esc(shortened(call.label, 60))}</code>", esc(call.phase or "—"), str(call.tokens),
                 esc(shortened(call.value, 80)), f"<code>{esc(_where(call))}</code>") for call in calls]
        parts.append(f"<div class='muted'>{esc(caption)}</div>{table(CALL_HEADERS, rows)}")
    return block("".join(parts))


# --- two runs compared ------------------------------------------------------------------------------------------


def _differing(comparison: RunComparison) -> list[dict[str, Any]]:
    calls = comparison.calls
    return calls[calls["status"] != "same"].head(PAGE).to_dict("records")


def _usage_line(comparison: RunComparison) -> str:
    return "; ".join(f"{name} {a:,} → {b:,} ({delta:+,})" for name, (a, b, delta) in comparison.usage.items())


def run_comparison_text(comparison: RunComparison) -> str:
    a, b = comparison.a, comparison.b
    counts = comparison.counts
    lines = [f"A          {a.run_id} {a.status}" + (f": {a.error}" if a.error else ""),
             f"B          {b.run_id} {b.status}" + (f": {b.error}" if b.error else ""),
             "CALLS      " + ", ".join(f"{count} {status}" for status, count in counts.items()),
             f"USAGE      {_usage_line(comparison)}",
             f"RESULT     {'the same' if not comparison.result_diff else 'differs:'}"]
    lines += [f"  {line}" for line in comparison.result_diff[:DIFF_CHARS].splitlines()]
    for row in _differing(comparison):
        if row["status"] == "changed prompt":
            lines.append(f"  [{row['status']}] {shortened(row['label'], 60)}: prompt changed, the same answer "
                         f"{shortened(row['b_value'], 50)}")
            continue
        lines.append(f"  [{row['status']}] {shortened(row['label'], 60)}: {shortened(row['a_value'], 50)} → "
                     f"{shortened(row['b_value'], 50)}" + (" (prompt changed)" if row["prompt_changed"] else ""))
    shown = sum(counts.values()) - counts["same"]
    if shown > PAGE:
        lines.append(f"  … {shown - PAGE:,} more differing calls")
    return "\n".join(plain_line(line) for line in lines)


def run_comparison_html(comparison: RunComparison) -> str:
    a, b = comparison.a, comparison.b
    counts = " ".join(badge(f"{count} {status}", COMPARE_TONES[status]) for status, count in comparison.counts.items())
    head = f"<b>Compared</b> A <code>{esc(a.run_id)}</code> · B <code>{esc(b.run_id)}</code>"
    parts = [f"<div>{head}</div>", f"<div>{counts}</div>", f"<div>usage: {esc(_usage_line(comparison))}</div>"]
    diff = comparison.result_diff
    parts.append("<div>results: the same</div>" if not diff else
                 f"<div>results differ:</div><pre>{esc(diff[:DIFF_CHARS])}</pre>")
    rows = [(badge(row["status"], COMPARE_TONES[row["status"]]), f"<code>{esc(shortened(row['label'], 60))}</code>",
             "yes" if row["prompt_changed"] else "", esc(shortened(row["a_value"], 80)),
             esc(shortened(row["b_value"], 80))) for row in _differing(comparison)]
    if rows:
        parts.append(table(("status", "label", "prompt changed", "a", "b"), rows))
    parts += [f"<div class='muted'>{esc(name)}</div>{run_timeline(record).to_svg()}"
              for name, record in ((f"A {a.run_id}", a), (f"B {b.run_id}", b))]
    return block("".join(parts))

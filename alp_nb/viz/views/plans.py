"""Views of a resume plan (``alp_nb.replay.plan_resume``): the warning first when the script differs from the one
that wrote the journal, the refusal when a resume would be refused, the totals and the budget, then the calls in
the order the script makes them, each live one with its reason. A plan may hold a hundred thousand calls: a
view draws one page of ``PLAN_PAGE_SIZE`` (the text view of a command, every call). Labels, prompts, details and
errors come from the run's files and the script: HTML escapes them (``html.esc``), plain text shows their control
and invisible characters (``terminal``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from alp_nb.replay.plan import LIVE, PLAN_PAGE_SIZE
from alp_nb.viz.html import TONE_COLOURS, WRAPPED, badge, block, esc, status_badge, table
from alp_nb.viz.terminal import plain_line
from alp_nb.viz.views.runs import shortened

if TYPE_CHECKING:
    from alp_nb.replay.plan import ResumePlan

CALL_HEADERS = ("#", "action", "label", "reason", "tokens saved", "phase", "detail")
LABEL_CHARS = 48
DETAIL_CHARS = 160
MISSING = "—"
BOX = "border-left:4px solid {colour};padding:2px 8px;margin:4px 0"


# --- what both views say ----------------------------------------------------------------------------------------


def _run_status(plan: ResumePlan) -> str:
    """The run's status; a run still running says that a resume must wait for it to stop."""
    if plan.run_status == "running":
        return "running: a resume waits until its process stops"
    return plan.run_status


def _totals(plan: ResumePlan) -> str:
    totals = plan.totals
    return (f"{totals.calls:,} calls: {totals.cached:,} cached ({totals.tokens_saved:,} tokens saved), "
            f"{totals.live:,} live")


def _budget(plan: ResumePlan) -> str:
    if plan.budget is None:
        return f"no token budget · {plan.spent:,} tokens spent so far{_held(plan)}"
    raised = " (raised by this plan)" if plan.budget_raised else ""
    left = plan.budget - plan.spent
    state = "refused" if plan.refused else f"{left:,} left for the live calls" if left > 0 else "all spent"
    return f"{plan.budget:,} tokens{raised} · {plan.spent:,} spent{_held(plan)} · {state}"


def _forecast(plan: ResumePlan) -> str | None:
    """``9 live calls should cost about 97 tokens (81–112)``, and whether the budget covers it."""
    forecast = plan.forecast
    if forecast is None or not forecast.calls:
        return None
    calls = "call" if forecast.calls == 1 else "calls"
    text = (f"{forecast.calls:,} live {calls} should cost about {forecast.expected:,} tokens "
            f"({forecast.low:,}–{forecast.high:,}), from this run's own answers")
    if forecast.guessed:
        text += f"; {forecast.guessed:,} of them at the run's mean (nothing like them was answered)"
    if plan.budget is not None and not plan.shortfall:
        text += " · the budget covers it"
    return text


def _held(plan: ResumePlan) -> str:
    """`` (20 of them held for 2 calls asked and never answered)``: what of the spent tokens is a reservation."""
    if not plan.unanswered:
        return ""
    calls = "call" if plan.unanswered == 1 else "calls"
    return f" ({plan.reserved:,} of them held for {plan.unanswered} {calls} asked and never answered)"


def _journal(plan: ResumePlan) -> str:
    match, unused = plan.match, len(plan.unused)
    if not match.journaled:
        return "the journal holds no call: every call runs"
    return (f"the script asks for {match.matched:,} of the {match.journaled:,} journaled calls"
            + (f"; {unused:,} no longer asked for" if unused else ""))


def _dry_run(plan: ResumePlan) -> str | None:
    """How the dry run ended, when it did not complete (a resume would stop there too, or the script broke on a
    stand-in answer)."""
    if plan.dry_run_status == "completed":
        return None
    return f"the plan's dry run ended {plan.dry_run_status}: {plan.dry_run_error or 'no reason given'}"


def _caption(plan: ResumePlan, shown: int, every_call: bool = False) -> str:
    total = len(plan.calls)
    if not shown:
        return f"calls: {total:,}"
    if every_call or plan.pages == 1:
        return f"calls: 1–{shown:,} of {total:,}"
    first = (plan.calls_page - 1) * PLAN_PAGE_SIZE + 1
    more = total - (first + shown - 1)
    return (f"calls: {first:,}–{first + shown - 1:,} of {total:,} · page {plan.calls_page:,} of {plan.pages:,}"
            + (f" · {more:,} more: .page({plan.calls_page + 1}) shows the next" if more > 0 else ""))


def _rows(plan: ResumePlan, every_call: bool = False) -> list[tuple[str, ...]]:
    """The calls shown as short texts, one tuple a row (``CALL_HEADERS``)."""
    page = plan.calls if every_call else plan.page_rows()
    if page.empty:
        return []
    columns = {name: page[name].tolist() for name in ("order", "action", "label", "reason", "tokens_saved",
                                                      "phase", "workflow", "detail")}
    rows: list[tuple[str, ...]] = []
    for index in range(len(page)):
        cell = {name: values[index] for name, values in columns.items()}
        live = cell["action"] == LIVE
        label = shortened(cell["label"], LABEL_CHARS)
        if isinstance(cell["workflow"], str):
            label = f"{shortened(cell['workflow'], 24)} → {label}"
        rows.append((
            str(cell["order"]), str(cell["action"]), label,
            str(cell["reason"]) if live and not _missing(cell["reason"]) else "",
            "" if live else f"{cell['tokens_saved']:,}",
            shortened(cell["phase"], 24) if isinstance(cell["phase"], str) else MISSING,
            shortened(cell["detail"], DETAIL_CHARS) if isinstance(cell["detail"], str) else "",
        ))
    return rows


def _unused(plan: ResumePlan, every_call: bool = False) -> tuple[list[str], int]:
    """The journaled calls no longer asked for, as ``label (seq N)`` (a page of them, unless ``every_call``), and
    how many are left out."""
    unused = plan.unused if every_call else plan.unused.iloc[:PLAN_PAGE_SIZE]
    names = [f"{shortened(label if isinstance(label, str) else key, LABEL_CHARS)} (seq {seq})"
             for seq, label, key in zip(unused["seq"].tolist(), unused["label"].tolist(), unused["key"].tolist(),
                                        strict=True)]
    return names, len(plan.unused) - len(names)


# --- text -------------------------------------------------------------------------------------------------------


def resume_plan_text(plan: ResumePlan, *, every_call: bool = False, show_warnings: bool = True) -> str:
    """The warning first (when the script differs), the run, the refusal, totals, budget, how the journal is used,
    how the dry run ended if it did not complete, the readers' warnings (unless ``show_warnings`` is False: a
    command line prints them on stderr), then one page of the calls (or ``every_call``), live ones with their
    reason, and the journaled calls no longer asked for."""
    lines = []
    if plan.warning:
        lines.append(f"WARNING    {plain_line(plan.warning)}")
    lines.append(f"PLAN       resume of {plain_line(plan.run_id)} · {plain_line(plan.workflow)} · run "
                 f"{plain_line(_run_status(plan))}")
    if plan.refusal:
        lines.append(f"REFUSED    {plain_line(plan.refusal)}")
    lines += [f"CALLS      {_totals(plan)}", f"BUDGET     {_budget(plan)}"]
    forecast = _forecast(plan)
    if forecast:
        lines.append(f"FORECAST   {forecast}")
    if plan.shortfall:
        lines.append(f"SHORT      {plan.shortfall}")
    lines.append(f"JOURNAL    {plain_line(_journal(plan))}")
    ended = _dry_run(plan)
    if ended:
        lines.append(f"DRY RUN    {plain_line(ended)}")
    if show_warnings:
        lines += [f"NOTE       {plain_line(warning)}" for warning in plan.warnings]
    rows = [tuple(plain_line(cell) for cell in row) for row in _rows(plan, every_call)]
    lines.append(_caption(plan, len(rows), every_call))
    if rows:  # five aligned columns, then the detail (too wide to align)
        headers = ("#", "action", "label", "reason", "saved")
        cells = [(row[0], row[1], row[2], row[3], row[4]) for row in rows]
        widths = [max(len(header), *(len(row[column]) for row in cells)) for column, header in enumerate(headers)]
        lines.append("  ".join(f"{header:<{width}}" for header, width in zip(headers, widths, strict=True))
                     + "  detail")
        lines += [("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths, strict=True))
                   + (f"  {full[6]}" if full[6] else "")).rstrip() for row, full in zip(cells, rows, strict=True)]
    names, more = _unused(plan, every_call)
    for number, name in enumerate(names):
        lines.append(f"{'UNUSED' if number == 0 else '':<10} {plain_line(name)}")
    if more:
        lines.append(f"{'':<10} and {more:,} more journaled calls no longer asked for")
    return "\n".join(lines)


# --- HTML -------------------------------------------------------------------------------------------------------


def _box(tone: str, title: str, text: str) -> str:
    return (f'<div style="{BOX.format(colour=TONE_COLOURS[tone])}">{badge(title, tone)} '
            f'<span style="{WRAPPED}">{esc(text)}</span></div>')


def resume_plan_html(plan: ResumePlan) -> str:
    """The warning first and in red (the script differs), the run, the refusal, totals, budget, journal use, how
    the dry run ended, the readers' warnings, one page of the calls (``plan.page(n)`` shows another; ``plan.calls``
    is the whole table), live ones with their reason, and the journaled calls no longer asked for."""
    parts = []
    if plan.warning:
        parts.append(_box("bad", "script differs", plan.warning))
    parts.append(f"<div><b>Resume plan</b> <code>{esc(plan.run_id)}</code> {esc(plan.workflow)} "
                 f"{status_badge(plan.run_status)}"
                 + (f' <span class="muted">{esc(_run_status(plan))}</span>' if plan.run_status == "running" else "")
                 + "</div>")
    if plan.refusal:
        parts.append(_box("bad", "refused", plan.refusal))
    forecast = _forecast(plan)
    parts.append(f"<div><b>{esc(_totals(plan))}</b></div>"
                 f'<div><span class="muted">budget</span> {esc(_budget(plan))}</div>'
                 + (f'<div><span class="muted">forecast</span> {esc(forecast)}</div>' if forecast else "")
                 + (_box("warn", "budget short", plan.shortfall) if plan.shortfall else "")
                 + f'<div><span class="muted">journal</span> {esc(_journal(plan))}</div>')
    ended = _dry_run(plan)
    if ended:
        parts.append(_box("warn", "dry run", ended))
    parts += [f'<div>{badge("warning", "warn")} {esc(warning)}</div>' for warning in plan.warnings]
    rows = _rows(plan)
    parts.append(f'<div class="muted">{esc(_caption(plan, len(rows)))}</div>')
    if rows:
        parts.append(table(CALL_HEADERS, [[_cell(column, cell) for column, cell in enumerate(row)] for row in rows]))
    names, more = _unused(plan)
    if names:
        listed = ", ".join(f"<code>{esc(name)}</code>" for name in names)
        tail = f' <span class="muted">and {more:,} more</span>' if more else ""
        parts.append(f'<div><span class="muted">journaled, no longer asked for ({len(plan.unused):,})</span> '
                     f"{listed}{tail}</div>")
    return block("".join(parts))


def _cell(column: int, text: str) -> str:
    if column == 1:
        return badge(text, "warn" if text == LIVE else "ok")
    if column == 3 and text:
        return f"<b>{esc(text)}</b>"
    if column in (2, 6):
        return f"<code>{esc(text)}</code>" if text else ""
    return esc(text)


def _missing(value: Any) -> bool:
    """None or NaN (a missing cell of an object column, as a table's ``tolist`` gives it)."""
    return value is None or (isinstance(value, float) and math.isnan(value))

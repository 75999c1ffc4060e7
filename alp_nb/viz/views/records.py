"""Views of runs read after the fact (``alp_nb.replay``): a ``RunRecord`` (its status with the failure reason
right under it, usage, attempts, phases, warnings and one page of its journal table), a page of the calls a filter
picked, and the rows of ``run_rows`` as text. A record may hold a hundred thousand rows: a view draws one page of
``JOURNAL_PAGE_SIZE``, never all. Every string from the run's files is untrusted: HTML escapes it
(``html.esc``), plain text shows its control and invisible characters (``terminal``).

An s16 journal line holds no tokens (the table says 0, so sums stay whole): its rows show ``—``, and the record says
that only the snapshot's total, on the usage line, is known.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from alp_nb.replay.record import JOURNAL_PAGE_SIZE
from alp_nb.viz.html import badge, block, esc, table
from alp_nb.viz.terminal import plain, plain_line
from alp_nb.viz.views.runs import journal_lines, shortened, snapshot_fragment, snapshot_lines

if TYPE_CHECKING:
    from alp_nb.replay.listing import RunRow
    from alp_nb.replay.record import RunRecord

RECORD_HEADERS = ("seq", "attempt", "status", "label", "phase", "tokens", "prompt", "value")
CALL_HEADERS = ("#", "seq", "attempt", "outcome", "label", "phase", "tokens")
"""The aligned columns of a page of calls; prompt → value (or error) follows them."""
RECOVERED_MARK = "↺ "
"""Put before a label recovered from an s16 snapshot."""
LIST_HEADERS = ("run_id", "workflow", "status", "attempts", "calls", "tokens", "updated", "error")
MISSING = "—"
S16_TOKENS = "its journal lines hold no tokens: the snapshot records only the run's total, which the usage shows"


# --- a record ---------------------------------------------------------------------------------------------------


def _rows(record: RunRecord, every_row: bool = False) -> list[tuple[str, ...]]:
    """The shown page (or ``every_row``) as short texts, one tuple a row (``RECORD_HEADERS``)."""
    page = record.journal if every_row else record.page_rows()
    if page.empty:
        return []
    columns = {name: page[name].tolist() for name in ("seq", "attempt", "kind", "status", "cached", "key", "label",
                                                      "phase", "tokens", "prompt", "value", "error", "recovered")}
    rows: list[tuple[str, ...]] = []
    for index in range(len(page)):
        cell = {name: values[index] for name, values in columns.items()}
        attempt = MISSING if _missing(cell["attempt"]) else str(cell["attempt"])
        status = str(cell["status"]) if not _missing(cell["status"]) else MISSING
        if cell["kind"] == "spend":
            status = f"spent: {status}"
        elif cell["kind"] == "ask":
            status = f"asked, {status}"
        if cell["cached"]:
            status += ", cached"
        label = cell["label"] if isinstance(cell["label"], str) else cell["key"]
        rows.append((
            str(cell["seq"]), attempt, status,
            (RECOVERED_MARK if cell["recovered"] else "") + shortened(label, 40),
            shortened(cell["phase"], 24) if isinstance(cell["phase"], str) else MISSING,
            tokens_text(record, cell["tokens"]),
            shortened(cell["prompt"]) if isinstance(cell["prompt"], str) else MISSING,
            shortened(cell["error"]) if isinstance(cell["error"], str) else MISSING if cell["kind"] != "agent" else
            shortened(cell["value"]),
        ))
    return rows


def _caption(record: RunRecord, shown: int, every_row: bool = False) -> str:
    total = len(record.journal)
    if not shown:
        return f"journal: {total:,} rows"
    if every_row:
        return f"journal: {total:,} rows"
    first = (record.journal_page - 1) * JOURNAL_PAGE_SIZE + 1
    pages = ""
    if record.pages > 1:
        pages = f" · page {record.journal_page:,} of {record.pages:,}" + (
            f" · .page({record.journal_page + 1}) shows the next" if record.journal_page < record.pages else "")
    return f"journal: rows {first:,}–{first + shown - 1:,} of {total:,}{pages}"


def tokens_text(record: RunRecord, tokens: Any) -> str:
    """A row's tokens as shown: ``—`` for an s16 run, whose lines hold none."""
    return MISSING if record.source == "s16" or not isinstance(tokens, int) else str(tokens)


def _by_phase(record: RunRecord) -> dict[str, int] | None:
    """What each phase spent, for a run under a budget (it says where the budget went)."""
    if record.budget is None:
        return None
    return {str(phase): int(tokens) for phase, tokens in record.spent_by_phase().items()}


def _source(record: RunRecord) -> str:
    """What the record says of where it came from (nothing for our own runs)."""
    if record.source != "s16":
        return ""
    recovered = int(record.journal["recovered"].sum())
    return (f"written by the s16 reference runtime; labels and phases of {recovered:,} of {len(record.journal):,} "
            f"rows recovered from its snapshot ({RECOVERED_MARK.strip()}); {S16_TOKENS}")


def record_header_lines(record: RunRecord, *, show_warnings: bool = True) -> list[str]:
    """The snapshot's lines with the failure reason under the status, then the budget, the source and the warnings
    (unless ``show_warnings`` is False: a command line prints them on stderr)."""
    lines = snapshot_lines(record.snapshot, record.error, _by_phase(record))
    source = _source(record)
    if source:
        lines.append(f"SOURCE     {plain(source)}")
    if show_warnings:
        lines += [f"WARNING    {plain_line(warning)}" for warning in record.warnings]
    return lines


def run_record_text(record: RunRecord, *, show_warnings: bool = True, every_row: bool = False) -> str:
    """``record_header_lines``, then one page of the journal (or ``every_row``)."""
    lines = record_header_lines(record, show_warnings=show_warnings)
    rows = [tuple(plain_line(cell) for cell in row) for row in _rows(record, every_row)]
    lines.append(_caption(record, len(rows), every_row))
    lines += journal_lines(RECORD_HEADERS[:6], rows)
    return "\n".join(lines)


def run_record_html(record: RunRecord) -> str:
    """Status with the failure reason in red under it, usage, attempts, phases, the warnings and one page of the
    journal (``record.page(n)`` shows another; ``record.journal`` is the whole table)."""
    parts = [snapshot_fragment(record.snapshot, record.error, _by_phase(record))]
    source = _source(record)
    if source:
        parts.append(f'<div>{badge("s16", "info")} <span class="muted">{esc(source)}</span></div>')
    parts += [f'<div>{badge("warning", "warn")} {esc(warning)}</div>' for warning in record.warnings]
    rows = _rows(record)
    parts.append(f'<div class="muted">{esc(_caption(record, len(rows)))}</div>')
    if rows:
        parts.append(table(RECORD_HEADERS, [[f"<code>{esc(cell)}</code>" if column >= 6 else esc(cell)
                                             for column, cell in enumerate(row)] for row in rows]))
    return block("".join(parts))


# --- the calls a filter picked ---------------------------------------------------------------------------------


def call_page_lines(record: RunRecord, picked: Sequence[int], page: int, what: str) -> list[str]:
    """Page ``page`` (of ``JOURNAL_PAGE_SIZE``) of the calls ``picked`` (indexes into ``record.calls``, as
    ``RunCalls.select`` gives them) under the caption ``calls N–M of K matching <what> of T``, one aligned line a
    call (``CALL_HEADERS``) ending in prompt → value, or → the error of a call that kept no answer."""
    calls, total = record.calls, len(record.calls)
    if not picked:
        return [f"calls: none of the {total:,} matches {plain_line(what)}"]
    start = (page - 1) * JOURNAL_PAGE_SIZE
    shown = picked[start:start + JOURNAL_PAGE_SIZE]
    pages = -(-len(picked) // JOURNAL_PAGE_SIZE)
    caption = (f"calls {start + 1:,}–{start + len(shown):,} of {len(picked):,} matching {plain_line(what)} of "
               f"{total:,}" + (f" · page {page:,} of {pages:,}" if pages > 1 else ""))
    rows = []
    for index in shown:
        call = calls.call(index, whole_line=False)
        answer = call.error if call.error else (MISSING if call.value is None else shortened(call.value))
        rows.append(tuple(plain_line(cell) for cell in (
            str(call.position), MISSING if call.seq is None else str(call.seq), str(call.attempt), call.outcome,
            shortened(call.label, 40), shortened(call.phase, 24), tokens_text(record, call.tokens),
            MISSING if call.prompt is None else shortened(call.prompt), shortened(answer))))
    return [caption, *journal_lines(CALL_HEADERS, rows)]


# --- the list of runs -------------------------------------------------------------------------------------------


def run_list_lines(runs: Sequence[RunRow], where: str = "") -> list[str]:
    """The rows of ``run_rows`` as aligned text lines (the failure reason last: it is the widest), or one line
    saying the store ``where`` holds no run."""
    if not runs:
        return [f"no runs{f' in {plain_line(where)}' if where else ''}"]
    rows = [[_list_cell(name, getattr(run, name)) for name in LIST_HEADERS] for run in runs]
    widths = [max(len(header), *(len(row[column]) for row in rows)) for column, header in enumerate(LIST_HEADERS)]
    lines = ["  ".join(f"{header:<{width}}" for header, width in zip(LIST_HEADERS, widths, strict=True)).rstrip()]
    lines += ["  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths, strict=True)).rstrip()
              for row in rows]
    return lines


def _list_cell(name: str, value: Any) -> str:
    if value is None:
        return "" if name == "error" else MISSING
    if name == "updated":
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(value))
    if name == "error":
        return plain_line(shortened(value, 120))
    return plain_line(value)


def _missing(value: Any) -> bool:
    """None, NaN, NaT or pandas' NA (what a table's ``tolist`` gives for a missing cell)."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    import pandas as pd

    return value is pd.NA or value is pd.NaT

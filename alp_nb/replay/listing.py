"""``list_runs``: every run of a store as one DataFrame row, from the snapshots, never the journals; ``run_rows``
gives the same rows as plain tuples, for a command that must start fast (it imports no pandas).

A run's row comes from its snapshot as ``RunStore.snapshot`` gives it (a ``running`` snapshot is caught up
with its journal, and reads ``interrupted`` once nobody holds its lock: the one case a journal is read), and
from its output file only when the failure reason is there and not in the snapshot (an s16 run). A run whose
files cannot be read is listed with status ``unreadable`` and the error's message; it never stops the list.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from alp_nb.base.errors import AlpError
from alp_nb.runtime.store import RunStore, run_error, workflow_of

from .record import store_of

if TYPE_CHECKING:
    import pandas as pd

RUN_LIST_COLUMNS: tuple[str, ...] = ("run_id", "workflow", "status", "error", "attempts", "calls", "tokens",
                                     "updated")
"""The columns of ``list_runs``, in order."""
UNREADABLE = "unreadable"
NEVER_STARTED = "never started"
"""A run whose snapshot is empty: its process stopped before writing it (s16 and older alp_nb reserved runs so)."""
FINISHED_WITH_REASON = ("failed", "cancelled")
"""The statuses whose reason may be only in the output file."""


class RunRow(NamedTuple):
    """One run of a store, as ``list_runs`` has it (``RUN_LIST_COLUMNS``); ``updated`` in Unix seconds, and
    ``attempts``, ``calls`` and ``tokens`` None for a run whose files cannot be read."""

    run_id: str
    workflow: str
    status: str
    error: str | None
    attempts: int | None
    calls: int | None
    tokens: int | None
    updated: float


def run_rows(store: RunStore | str | os.PathLike[str] | None = None) -> list[RunRow]:
    """The rows of ``list_runs``, the most recently changed last, as plain tuples (no pandas)."""
    store = store_of(store)
    return sorted((_row(store, run_id) for run_id in store.run_ids()), key=lambda row: row.updated)


def list_runs(store: RunStore | str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """One row per run in ``store`` (a RunStore or folder, default ``./.alp-runs``), the most recently changed
    last: ``run_id``, ``workflow``, ``status`` (``interrupted`` for a run that says running while its lock is
    free; ``never started`` for a run whose snapshot is empty; ``unreadable`` for a run whose files are bad, with the
    message as its ``error``), ``error`` (the failure
    reason, as ``RunRecord.error``), ``attempts``, ``calls`` and ``tokens`` (cumulative over the attempts) and
    ``updated`` (when any of its files last changed, UTC).

    ``ReplayError`` ``STORE_NOT_FOUND`` when the folder does not exist; an empty store is an empty table."""
    import pandas as pd

    rows = run_rows(store)
    columns: dict[str, Any] = {name: [row[index] for row in rows] for index, name in enumerate(RUN_LIST_COLUMNS)}
    for name in ("attempts", "calls", "tokens"):
        columns[name] = pd.array(columns[name], dtype="Int64")
    columns["updated"] = pd.to_datetime(columns["updated"], unit="s", utc=True)
    for name in ("run_id", "workflow", "status", "error"):
        columns[name] = pd.Series(columns[name], dtype=object)
    return pd.DataFrame(columns, columns=list(RUN_LIST_COLUMNS))


def _row(store: RunStore, run_id: str) -> RunRow:
    updated = _changed(store, run_id)
    try:
        snapshot = store.snapshot(run_id)
        error = snapshot.error
        if error is None and snapshot.status in FINISHED_WITH_REASON:
            error = run_error(snapshot, store.read_output(run_id))
    except AlpError as refused:
        status = NEVER_STARTED if refused.code == "RUN_NOT_STARTED" else UNREADABLE
        return RunRow(run_id, workflow_of(run_id), status, refused.message, None, None, None, updated)
    cumulative = snapshot.usage.cumulative
    return RunRow(run_id, snapshot.workflow_name, snapshot.status, error, len(snapshot.attempts), cumulative.agents,
                  cumulative.tokens, updated)


def _changed(store: RunStore, run_id: str) -> float:
    """The latest modification time of the run's files (a live run's journal changes long before its snapshot);
    read with ``lstat``, so a planted link is never followed."""
    paths = store.paths(run_id)
    times = []
    for path in (paths.snapshot, paths.journal, paths.events, paths.output):
        try:
            times.append(path.lstat().st_mtime)
        except OSError:
            continue
    return max(times, default=0.0)

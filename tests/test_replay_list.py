"""``list_runs``: one row per run of a store, the most recently changed last, read from snapshots (and an output
file only where the failure reason is only there), never from journals but for a running snapshot; a run whose
files are bad is listed ``unreadable`` with the message, never stopping the list."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from runtime_support import FailingRunner, interrupted_review, launch
from s16_support import CRASH, CRASHED_CALLS, write_s16_run

from alp_nb.replay import RUN_LIST_COLUMNS, ReplayError, list_runs
from alp_nb.runtime import RunStore


def age(store: RunStore, run_id: str, seconds: float) -> None:
    """Set every file of ``run_id`` to ``seconds`` after the epoch (so the order of the list is known)."""
    for path in store.root.glob(f"{run_id}.*"):
        os.utime(path, (seconds, seconds))


def test_each_run_is_a_row_with_the_documented_columns_the_most_recently_changed_last(store):
    done = launch("sequence", store, args={"calls": 2})
    failed = launch("sequence", store, runner=FailingRunner({"step-1"}))
    age(store, done.run_id, 2_000_000_000)
    age(store, failed.run_id, 1_000_000_000)
    runs = list_runs(store)
    assert tuple(runs.columns) == RUN_LIST_COLUMNS == ("run_id", "workflow", "status", "error", "attempts", "calls",
                                                       "tokens", "updated")
    assert runs["run_id"].tolist() == [failed.run_id, done.run_id]
    first, second = runs.to_dict("records")
    assert (first["workflow"], first["status"], first["error"], first["attempts"]) == (
        "sequence", "failed", failed.error, 1)
    assert (second["status"], second["error"], second["calls"], second["tokens"]) == (
        "completed", None, 2, done.task.usage.cumulative.tokens)
    assert second["updated"] == pd.Timestamp(2_000_000_000, unit="s", tz="UTC")


def test_a_resumed_run_counts_its_attempts_and_cumulative_usage(store):
    first = launch("sequence", store, args={"calls": 3}, runner=FailingRunner({"step-2"}))
    again = launch("sequence", store, resume=first.run_id)
    (row,) = list_runs(store).to_dict("records")
    assert (row["attempts"], row["calls"], row["tokens"], row["error"]) == (
        2, again.task.usage.cumulative.agents, again.task.usage.cumulative.tokens, None)


def test_an_interrupted_run_is_listed_interrupted(tmp_path):
    store = interrupted_review(tmp_path / "runs")
    (row,) = list_runs(store).to_dict("records")
    assert (row["status"], row["error"], row["calls"]) == ("interrupted", None, 5)  # the fifth asked as it died


def test_an_s16_runs_reason_comes_from_its_output_file(tmp_path):
    store, run_id = write_s16_run(tmp_path / ".runtime", "review-changes", status="failed", calls=CRASHED_CALLS,
                                  output={"error": CRASH})
    (row,) = list_runs(str(store.root)).to_dict("records")
    assert (row["run_id"], row["status"], row["error"], row["calls"]) == (run_id, "failed", CRASH, 10)


def test_the_output_is_read_only_for_a_reason_the_snapshot_lacks_and_journals_never(store, monkeypatch):
    launch("sequence", store)
    launch("sequence", store, runner=FailingRunner({"step-0"}))
    outputs, journals = [], []
    monkeypatch.setattr(RunStore, "read_output", lambda self, run_id: outputs.append(run_id))
    monkeypatch.setattr("alp_nb.runtime.store.read_journal", lambda *a, **k: journals.append(a))
    assert len(list_runs(store)) == 2
    assert outputs == [] and journals == []


def test_a_run_whose_files_are_bad_is_listed_unreadable_with_the_message(store):
    good = launch("sequence", store)
    bad = launch("sequence", store, args={"calls": 1})
    store.paths(bad.run_id).snapshot.write_text("{ not json")
    rows = {row["run_id"]: row for row in list_runs(store).to_dict("records")}
    assert rows[good.run_id]["status"] == "completed"
    row = rows[bad.run_id]
    assert (row["workflow"], row["status"]) == ("sequence", "unreadable")
    assert row["error"].startswith(f"{bad.run_id}.json:") and pd.isna(row["calls"]) and pd.isna(row["attempts"])


def test_a_snapshot_that_is_a_link_is_listed_unreadable_not_followed(store, tmp_path):
    run = launch("sequence", store)
    path = store.paths(run.run_id).snapshot
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(path.read_text())
    path.unlink()
    path.symlink_to(elsewhere)
    (row,) = list_runs(store).to_dict("records")
    assert row["status"] == "unreadable" and "symbolic link" in row["error"]


def test_an_empty_store_is_an_empty_table_and_a_missing_one_is_refused(store, tmp_path):
    store.root.mkdir()
    (store.root / "notes.json").write_text(json.dumps({}))
    runs = list_runs(store)
    assert runs.empty and tuple(runs.columns) == RUN_LIST_COLUMNS
    with pytest.raises(ReplayError) as refused:
        list_runs(tmp_path / "nowhere")
    assert refused.value.code == "STORE_NOT_FOUND"


def test_run_rows_are_the_rows_of_list_runs_as_plain_tuples(store):
    from alp_nb.replay import run_rows

    launch("sequence", store, args={"calls": 2})
    launch("sequence", store, runner=FailingRunner({"step-1"}))
    (store.root / "wf_sequence_0000000000000000.json").write_text("{")
    rows, table = run_rows(store), list_runs(store)
    assert [row._fields for row in rows] == [RUN_LIST_COLUMNS] * 3
    assert [(row.run_id, row.status, row.error, row.calls) for row in rows] == [
        (run_id, status, None if pd.isna(error) else error, None if pd.isna(calls) else calls)
        for run_id, status, error, calls in table[["run_id", "status", "error", "calls"]].itertuples(index=False)]
    assert [pd.Timestamp(row.updated, unit="s", tz="UTC") for row in rows] == table["updated"].tolist()

"""``load_run``: one of our runs read after the fact into a ``RunRecord``, its journal one pandas DataFrame.

Completed, failed (with its reason), resumed (rows of earlier attempts ``cached``), interrupted (the store's
``interrupted``); spend lines beside call lines; a torn last line is a warning, a bad line before it an error
naming the file and line; nothing outside a record's files is read, and pandas only when a record is made."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pandas as pd
import pytest
from runtime_support import (
    KILLED_AFTER,
    OK_SCHEMA,
    FailingRunner,
    interrupted_review,
    journal_records,
    launch,
    run_script,
    sealed_line,
)

from alp_nb.replay import JOURNAL_COLUMNS, ReplayError, RunRecord, load_run
from alp_nb.runtime import MockAgentRunner, RunnerOutput, RunStore, WorkflowInputError


def rows(record: RunRecord, *columns: str) -> list[tuple]:
    return list(record.journal[list(columns)].itertuples(index=False, name=None))


class SchemaBreaker:
    """Answers ``check`` once with output that breaks OK_SCHEMA (7 tokens), then as asked (5 tokens)."""

    def run(self, prompt, schema=None, label=""):
        if label == "check" and not prompt.endswith("Return valid JSON."):
            return RunnerOutput({"ok": "not a boolean"}, 7)
        return RunnerOutput({"ok": True} if schema else f"answer to {label}", 5)


# --- the record -------------------------------------------------------------------------------------------------


def test_a_completed_run_loads_with_its_snapshot_output_result_and_no_error(store):
    run = launch("sequence", store, args={"calls": 3})
    record = load_run(run.run_id, store=store)
    assert (record.run_id, record.status, record.error, record.source) == (run.run_id, "completed", None, "alp")
    assert record.snapshot == store.snapshot(run.run_id)
    assert record.output == record.result == run.result
    assert record.usage == run.task.usage and record.attempts == run.task.attempts
    assert record.warnings == () and record.store is store


def test_the_journal_has_exactly_the_documented_columns_in_order(store):
    record = load_run(launch("sequence", store).run_id, store=store)
    assert tuple(record.journal.columns) == JOURNAL_COLUMNS == (
        "seq", "key", "kind", "label", "phase", "status", "cached", "tokens", "attempt", "started", "ended",
        "duration", "prompt", "value", "error", "recovered")
    dtypes = {name: str(dtype) for name, dtype in record.journal.dtypes.items()}
    assert dtypes == {"seq": "int64", "key": "object", "kind": "category", "label": "object", "phase": "category",
                      "status": "category", "cached": "bool", "tokens": "int64", "attempt": "Int64",
                      "started": "float64", "ended": "float64", "duration": "float64", "prompt": "object",
                      "value": "object", "error": "object", "recovered": "bool"}


def test_one_row_per_call_line_with_its_fields_as_the_journal_holds_them(store):
    run = launch("sequence", store, args={"calls": 3}, runner=MockAgentRunner(tokens=4))
    record = load_run(run.run_id, store=store)
    lines = journal_records(store, run.run_id)
    assert rows(record, "seq", "key", "kind", "label", "status", "tokens", "prompt", "value") == [
        (line["seq"], line["key"], "agent", line["label"], "done", 4, line["prompt"], line["value"])
        for line in lines]
    assert record.journal["started"].tolist() == [line["started"] for line in lines]
    duration = record.journal["duration"].tolist()
    assert duration == [line["ended"] - line["started"] for line in lines] and min(duration) >= 0
    assert not record.journal["cached"].any() and not record.journal["recovered"].any()
    assert record.journal["attempt"].tolist() == [1, 1, 1]
    assert record.line_numbers.tolist() == [2, 4, 6]  # each call's line follows its ask line


def test_a_value_stays_parsed_json_one_object_a_cell(store):
    async def script(ctx, args):
        return [await ctx.agent("list", label="list"), await ctx.agent("object", label="object")]

    runner = MockAgentRunner({"list": [1, [2, 3]], "object": {"nested": {"a": None}}})
    record = load_run(run_script(store, script, runner).run_id, store=store)
    assert record.journal["value"].tolist() == [[1, [2, 3]], {"nested": {"a": None}}]


def test_a_failed_run_gives_its_reason_as_error(store):
    run = launch("sequence", store, runner=FailingRunner({"step-1"}))
    record = load_run(run.run_id, store=store)
    assert record.status == "failed" and record.result is None
    assert record.error == run.error and "runner broke on step-1" in record.error
    assert record.output == {"error": run.error}
    assert load_run(run.run_id, store=store).error == run.error


def test_a_resumed_run_marks_the_rows_of_earlier_attempts_cached(store):
    first = launch("sequence", store, args={"calls": 3}, runner=FailingRunner({"step-2"}))
    again = launch("sequence", store, resume=first.run_id)
    record = load_run(first.run_id, store=store)
    assert again.status == record.status == "completed" and record.error is None
    assert [attempt.first_seq for attempt in record.attempts] == [1, 7]  # after step-2's ask and its failure
    assert rows(record, "label", "kind", "attempt", "cached") == [
        ("step-0", "agent", 1, True), ("step-1", "agent", 1, True), ("step-2", "spend", 1, True),
        ("step-2", "agent", 2, False)]  # the runner's failure at step-2 is a spend line of 0 tokens


def test_lines_written_before_the_first_attempt_are_cached_with_no_attempt(store):
    """A fork's journal starts with lines copied from its source, before its first attempt's first seq."""
    run_id = "wf_forked_0123456789abcdef"
    store.root.mkdir(parents=True)
    store.paths(run_id).snapshot.write_text(json.dumps({
        "runId": run_id, "taskId": f"local_workflow_{run_id}", "workflowName": "forked", "status": "completed",
        "fork": {"runId": "wf_forked_fedcba9876543210"}, "attempts": [{"number": 1, "status": "completed",
                                                                     "firstSeq": 3}]}))
    store.paths(run_id).journal.write_text("".join(
        sealed_line({"v": 2, "seq": seq, "key": f"agent-{seq:032x}", "kind": "agent", "label": f"call-{seq}",
                     "value": seq, "tokens": 1}) for seq in range(1, 5)))
    record = load_run(run_id, store=store)
    assert rows(record, "seq", "cached") == [(1, True), (2, True), (3, False), (4, False)]
    assert record.journal["attempt"].isna().tolist() == [True, True, False, False]
    assert record.journal["attempt"].tolist()[2:] == [1, 1]


def test_a_call_recorded_twice_with_the_same_value_is_one_row(store):
    run = launch("sequence", store, args={"calls": 2})
    path = store.paths(run.run_id).journal
    lines = path.read_text().splitlines(keepends=True)
    ask, answer = json.loads(lines[0]), json.loads(lines[1])
    path.write_text("".join(lines) + sealed_line({**ask, "seq": 5}) + sealed_line({**answer, "seq": 6, "ask": 5}))
    record = load_run(run.run_id, store=store)
    assert record.journal["label"].tolist() == ["step-0", "step-1"] and record.line_numbers.tolist() == [2, 4]


def test_spend_lines_are_rows_of_kind_spend_whose_status_is_their_reason(store):
    async def script(ctx, args):
        return await ctx.agent("check it", schema=OK_SCHEMA, label="check")

    record = load_run(run_script(store, script, SchemaBreaker()).run_id, store=store)
    assert rows(record, "kind", "status", "label", "tokens") == [("spend", "retried", "check", 7),
                                                                ("agent", "done", "check", 5)]
    spend, call = record.journal.iloc[0], record.journal.iloc[1]
    assert spend["value"] is None and spend["prompt"] is None  # the schema's issues: why it was not kept
    assert spend["error"] == "ok: 'not a boolean' is not of type 'boolean'"
    assert call["started"] <= spend["started"] <= spend["ended"] <= call["ended"]  # asked, refused, asked again
    assert record.journal["tokens"].sum() == record.usage.cumulative.tokens == 12


def test_an_interrupted_run_reads_interrupted_and_is_caught_up_with_its_journal(tmp_path):
    store = interrupted_review(tmp_path / "runs")
    record = load_run(store=store)
    assert record.run_id == store.last_run() and record.status == "interrupted" and record.error is None
    assert record.snapshot == store.snapshot(record.run_id)
    assert rows(record, "kind", "status")[-1] == ("ask", "unanswered")  # the call asked as it died: a row too
    assert len(record.journal) - 1 == KILLED_AFTER == record.usage.cumulative.agents - 1
    assert record.usage.cumulative.unanswered == 1
    assert record.output is None and record.result is None


def test_the_events_are_read_only_when_first_asked_for_and_then_kept(store, monkeypatch):
    run = launch("sequence", store, args={"calls": 1})
    read = []
    original = RunStore.read_events
    monkeypatch.setattr(RunStore, "read_events", lambda self, run_id: read.append(run_id) or original(self, run_id))
    record = load_run(run.run_id, store=store)
    assert read == []
    assert [event.type for event in record.events][:2] == ["async_launched", "task_started"]
    assert record.events is record.events and read == [run.run_id]
    assert record.page(1).events is record.events and read == [run.run_id]


def test_entry_gives_a_rows_whole_journal_line_with_its_schema(store):
    async def script(ctx, args):
        return await ctx.agent("check it", schema=OK_SCHEMA, label="check")

    record = load_run(run_script(store, script, MockAgentRunner()).run_id, store=store)
    entry = record.entry(0)
    assert (entry.label, entry.seq, entry.prompt) == ("check", 2, "check it")
    assert json.loads(json.dumps(entry.to_json()["schema"])) == OK_SCHEMA


def test_pages_of_twenty_rows_and_a_page_outside_them_is_refused(store):
    record = load_run(launch("sequence", store, args={"calls": 45}).run_id, store=store)
    assert record.pages == 3 and len(record.page_rows()) == 20
    last = record.page(3)
    assert last.page_rows()["seq"].tolist() == list(range(82, 91, 2)) and last.journal is record.journal
    for page in (0, 4, "2", 1.0):
        with pytest.raises(ReplayError) as refused:
            record.page(page)
        assert refused.value.code == "INVALID_OPTION"


def test_the_repr_names_the_run_its_status_and_its_error(store):
    run = launch("sequence", store, runner=FailingRunner({"step-0"}))
    text = repr(load_run(run.run_id, store=store))
    assert text.startswith(f"RunRecord('{run.run_id}', status='failed', error='") and "step-0" in text
    assert "journal_rows=1, source='alp')" in text  # the runner's failure: a spend line of 0 tokens


def test_the_last_run_is_loaded_by_default_and_a_store_without_one_refuses(store, tmp_path):
    launch("sequence", store)
    second = launch("sequence", store, args={"calls": 1})
    assert load_run(store=store).run_id == second.run_id == load_run(store=str(store.root)).run_id
    (tmp_path / "empty").mkdir()
    with pytest.raises(WorkflowInputError) as refused:
        load_run(store=tmp_path / "empty")
    assert refused.value.code == "RUN_NOT_FOUND" and "empty" in refused.value.message


def test_a_missing_store_folder_or_a_store_of_another_type_is_a_replay_error(tmp_path):
    with pytest.raises(ReplayError) as missing:
        load_run(store=tmp_path / "nowhere")
    assert missing.value.code == "STORE_NOT_FOUND" and "nowhere" in missing.value.message
    with pytest.raises(ReplayError) as wrong:
        load_run(store=42)
    assert wrong.value.code == "INVALID_OPTION"


def test_a_run_that_is_not_there_is_the_runtimes_run_not_found(store):
    launch("sequence", store)
    with pytest.raises(WorkflowInputError) as refused:
        load_run("wf_sequence_0000000000000000", store=store)
    assert refused.value.code == "RUN_NOT_FOUND"
    with pytest.raises(WorkflowInputError) as invalid:
        load_run("../../etc/passwd", store=store)
    assert invalid.value.code == "INVALID_RUN_ID"


# --- bad files --------------------------------------------------------------------------------------------------


def test_a_torn_last_line_is_a_warning_on_the_record_not_an_error(store):
    run = launch("sequence", store, args={"calls": 3})
    path = store.paths(run.run_id).journal
    path.write_bytes(path.read_bytes()[:-25])
    with pytest.warns(RuntimeWarning, match="line 6 is incomplete"):
        record = load_run(run.run_id, store=store)
    assert rows(record, "kind", "label", "status") == [  # the call whose answer was torn was still asked
        ("agent", "step-0", "done"), ("agent", "step-1", "done"), ("ask", "step-2", "unanswered")]
    assert record.warnings == (f"{path.name} line 6 is incomplete (torn write) and was dropped",)


def test_a_bad_line_in_the_middle_is_an_error_naming_the_file_and_line(store):
    run = launch("sequence", store, args={"calls": 3})
    path = store.paths(run.run_id).journal
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = "{not json\n"
    path.write_text("".join(lines))
    with pytest.raises(WorkflowInputError) as refused:
        load_run(run.run_id, store=store)
    assert refused.value.code == "JOURNAL_CORRUPT"
    assert refused.value.message.startswith(f"{path.name} line 2:")


def test_an_edited_line_is_the_runtimes_tampering_error_naming_the_line(store):
    run = launch("sequence", store, args={"calls": 3})
    path = store.paths(run.run_id).journal
    path.write_text(path.read_text().replace("mock answer to step-1", "forged answer"))
    with pytest.raises(WorkflowInputError) as refused:
        load_run(run.run_id, store=store)
    assert refused.value.code == "JOURNAL_TAMPERED" and f"{path.name} line 4:" in refused.value.message


def test_a_corrupt_snapshot_is_an_error_naming_the_file(store):
    run = launch("sequence", store)
    store.paths(run.run_id).snapshot.write_text('{"runId": NaN}')
    with pytest.raises(WorkflowInputError) as refused:
        load_run(run.run_id, store=store)
    assert refused.value.code == "CORRUPT_RUN" and refused.value.message.startswith(f"{run.run_id}.json")


def test_a_field_of_the_wrong_type_is_shown_missing_with_a_warning_naming_its_line(store):
    run_id = "wf_legacy_0123456789abcdef"
    store.root.mkdir(parents=True)
    store.paths(run_id).snapshot.write_text(json.dumps({
        "runId": run_id, "taskId": f"local_workflow_{run_id}", "workflowName": "legacy", "status": "completed"}))
    store.paths(run_id).journal.write_text(
        json.dumps({"v": 1, "seq": 1, "key": "agent-aa", "label": ["not", "text"], "phase": {"x": 1},
                    "started": "noon", "value": "kept"}) + "\n")
    with pytest.warns(RuntimeWarning, match="line 1: `phase`, `started`, `label` of the wrong type"):
        record = load_run(run_id, store=store)
    row = record.journal.iloc[0]
    assert row["label"] is None and pd.isna(row["phase"]) and math.isnan(row["started"]) and row["value"] == "kept"
    assert record.warnings[0].endswith("1 line carries no checksum (written by the s16 reference or before alp_nb "
                                       "sealed its lines): nothing vouches for them") and len(record.warnings) == 2


def test_a_token_count_too_large_for_the_table_is_an_error_naming_the_line(store):
    run_id = "wf_legacy_0123456789abcdef"
    store.root.mkdir(parents=True)
    store.paths(run_id).snapshot.write_text(json.dumps({
        "runId": run_id, "taskId": f"local_workflow_{run_id}", "workflowName": "legacy", "status": "completed"}))
    store.paths(run_id).journal.write_text(json.dumps({"v": 1, "key": "agent-aa", "value": 1,
                                                       "tokens": 10**30}) + "\n")
    with pytest.raises(WorkflowInputError) as refused:
        load_run(run_id, store=store)
    assert refused.value.code == "JOURNAL_CORRUPT" and refused.value.message.startswith(
        f"{run_id}.journal.jsonl line 1:")


def test_a_journal_that_is_a_link_is_refused_not_followed(store, tmp_path):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)
    with pytest.raises(WorkflowInputError) as refused:
        load_run(run.run_id, store=store)
    assert refused.value.code == "UNSAFE_STORE_FILE"


# --- the cheap import -------------------------------------------------------------------------------------------


def test_pandas_is_imported_only_when_a_record_is_loaded(store, tmp_path):
    run = launch("sequence", store, args={"calls": 1})
    code = ("import sys\nfrom alp_nb import load_run, list_runs, RunRecord\n"
            "import alp_nb.replay.record, alp_nb.replay.listing\n"
            "before = 'pandas' in sys.modules\n"
            f"record = load_run({run.run_id!r}, store={str(store.root)!r})\n"
            "print(before, 'pandas' in sys.modules, len(record.journal))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.split() == ["False", "True", "1"]


def test_the_replay_names_are_exported_from_the_layer_and_from_alp_nb():
    import alp_nb
    import alp_nb.replay as replay

    names = ("load_run", "RunRecord", "list_runs", "JOURNAL_COLUMNS", "RUN_LIST_COLUMNS", "ReplayError",
             "REPLAY_ERROR_CODES")
    assert set(names) <= set(alp_nb.__all__) and set(names) <= set(replay.__all__)
    assert all(getattr(alp_nb, name) is getattr(replay, name) for name in names)

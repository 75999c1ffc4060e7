"""The run store on disk, exactly as docs/design.md "Files on disk" lays it out."""

from __future__ import annotations

import json
import stat

import pytest
from runtime_support import KILLED_AFTER, as_v3_journal, interrupted_review, launch, registry, sealed_line

from alp_nb.cli import main
from alp_nb.replay import load_run
from alp_nb.runtime import RunStore, WorkflowInputError
from alp_nb.runtime.keys import RUN_ID_RE


def test_a_run_writes_snapshot_journal_events_output_lock_and_last_run_pointer(store):
    result = launch("sequence", store)
    run_id = result.run_id
    assert RUN_ID_RE.fullmatch(run_id) and run_id.startswith("wf_sequence_")
    assert sorted(path.name for path in store.root.iterdir()) == sorted([
        f"{run_id}.json", f"{run_id}.journal.jsonl", f"{run_id}.events.jsonl", f"{run_id}.output.json",
        f"{run_id}.lock", "last_run.txt"])
    assert store.last_run() == run_id and result.launched.task_id == f"local_workflow_{run_id}"
    for path in store.root.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    assert stat.S_IMODE(store.root.stat().st_mode) == 0o700


def test_snapshot_holds_workflow_args_digest_status_usage_attempts_and_pid(store):
    result = launch("sequence", store, args={"calls": 2})
    data = json.loads(store.paths(result.run_id).snapshot.read_text())
    assert {"runId", "taskId", "workflowName", "args", "scriptDigest", "status", "usage", "attempts", "pid",
            "phases", "logs", "error", "errorCode", "budget", "fork", "sealedFrom", "updatedAt"} == set(data)
    assert data["sealedFrom"] == 1  # every line of a run alp_nb started carries a checksum
    assert data["workflowName"] == "sequence" and data["args"] == {"calls": 2} and data["status"] == "completed"
    assert data["usage"]["attempt"] == data["usage"]["cumulative"] == {"agents": 2, "tokens": 2 * (8 + 6 // 4)}
    (attempt,) = data["attempts"]
    assert attempt["number"] == 1 and attempt["status"] == "completed" and attempt["firstSeq"] == 1
    assert attempt["lastSeq"] == 4  # an ask line and a call line per call
    assert data["scriptDigest"] == registry().get("sequence").digest == attempt["scriptDigest"]


def test_events_file_has_the_lifecycle_with_timestamps(store):
    result = launch("sequence", store, args={"calls": 1})
    lines = [json.loads(line) for line in store.paths(result.run_id).events.read_text().splitlines()]
    assert [(event["type"], event.get("status")) for event in lines] == [
        ("async_launched", None), ("task_started", None), ("task_notification", "completed")]
    assert lines[0]["format"] == 3  # a call's steps are the journal's: the events file holds none of them
    assert all(isinstance(event["ts"], float) for event in lines)


def test_output_file_holds_the_result(store):
    result = launch("sequence", store, args={"calls": 1})
    assert store.read_output(result.run_id) == result.result == ["mock answer to step-0"]


def test_journal_seq_continues_across_attempts(store):
    first = launch("sequence", store, args={"calls": 2})
    path = store.paths(first.run_id).journal
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))  # step-0's ask and answer
    with pytest.warns(RuntimeWarning, match=r"seq 3–4 \(2 lines\) deleted from its end"):
        first_seq = launch("sequence", store, resume=first.run_id).task.attempts[-1].first_seq
    assert [json.loads(line)["seq"] for line in path.read_text().splitlines()] == [1, 2, 3, 4] and first_seq == 3


def test_a_run_reads_back_with_its_snapshot_journal_and_output(store):
    result = launch("staged", store)
    record = load_run(result.run_id, store=store)
    assert record.status == "completed" and record.output == result.result
    assert sorted(record.journal["label"]) == [f"{stage}-{item}" for stage in ("first", "second") for item in "abc"]
    assert record.journal["phase"][0] == "Stage" and record.journal["tokens"][0] > 0
    assert store.run_ids() == (result.run_id,)


def test_durability_fsync_runs_the_same_way(store):
    assert launch("sequence", store, durability="fsync").status == "completed"
    with pytest.raises(WorkflowInputError) as caught:
        launch("sequence", store, durability="sometimes")
    assert caught.value.code == "INVALID_OPTION"


def test_a_corrupt_snapshot_is_reported_naming_the_file(store):
    result = launch("sequence", store)
    store.paths(result.run_id).snapshot.write_text('{"runId": 3}')
    with pytest.raises(WorkflowInputError) as caught:
        store.read_snapshot(result.run_id)
    assert caught.value.code == "CORRUPT_RUN" and caught.value.message.startswith(f"{result.run_id}.json: ")


def test_last_run_is_none_in_an_empty_store(store):
    assert store.last_run() is None and store.run_ids() == ()


def test_read_events_returns_every_attempt_in_order_and_skips_a_torn_tail(store):
    first = launch("sequence", store, args={"calls": 1})
    launch("sequence", store, resume=first.run_id)
    path = store.paths(first.run_id).events
    path.write_text(path.read_text() + '{"type": "workflow_ag')
    events = store.read_events(first.run_id)
    assert [event.type for event in events].count("task_started") == 2
    assert events[-1].type == "task_notification" and events[-2].type == "calls_cached"


def test_events_of_a_run_resumed_after_a_torn_event_line_stay_readable(store):
    first = launch("sequence", store)
    with store.paths(first.run_id).events.open("a") as events:
        events.write('{"type": "workflow_agent", "sta')  # a crash mid-write
    launch("sequence", store, resume=first.run_id)
    started = [event for event in store.read_events(first.run_id) if event.type == "task_started"]
    assert [event.attempt for event in started] == [1, 2]


def test_a_journal_that_resumes_can_always_be_shown(store):
    """A v3 line says all about its call, and a resume reads only its key and value."""
    result = launch("sequence", store, args={"calls": 2})
    path = store.paths(result.run_id).journal
    lines = as_v3_journal(store, result.run_id)
    lines[3]["label"] = 5  # malformed, but the resume never reads it
    path.write_text("".join(sealed_line(line) for line in lines))
    with pytest.warns(RuntimeWarning, match="line 4: `label` of the wrong type"):
        record = load_run(result.run_id, store=store)
    assert record.journal["label"].tolist() == ["step-0", None]
    assert record.journal["value"][1] == "mock answer to step-1" and len(record.warnings) == 1
    assert launch("sequence", store, resume=result.run_id).task.attempts[-1].cached == 2


@pytest.mark.parametrize("field", ["label", "prompt", "phase"])
def test_an_ask_line_whose_call_is_malformed_is_refused_naming_it_as_no_answer_to_it_could_be_shown(store, field):
    result = launch("sequence", store, args={"calls": 2})
    path = store.paths(result.run_id).journal
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[2][field] = 5
    path.write_text("".join(sealed_line(line) for line in lines))
    with pytest.raises(WorkflowInputError, match=f"line 3: `{field}` must be a string") as refused:
        load_run(result.run_id, store=store)
    assert refused.value.code == "JOURNAL_CORRUPT"


def test_last_run_names_a_run_only_once_its_first_snapshot_is_written(store, monkeypatch):
    first = launch("sequence", store)

    def crash(*args, **kwargs):
        raise RuntimeError("killed")  # the process dies between reserving the run and its first snapshot

    monkeypatch.setattr(RunStore, "write_snapshot", crash)
    with pytest.raises(RuntimeError, match="killed"):
        launch("sequence", store)
    assert store.last_run() == first.run_id


def test_cli_run_with_a_store_that_is_a_file_exits_2_naming_it(tmp_path, capsys):
    not_a_folder = tmp_path / "runs"
    not_a_folder.write_text("")
    code = main(["workflow", "run", "review-changes", "--args", '{"changes": "x"}', "--store", str(not_a_folder)])
    err = capsys.readouterr().err
    assert code == 2 and str(not_a_folder) in err and err.count("\n") == 1
    assert main(["workflow", "resume", "--store", str(not_a_folder)]) == 2
    assert str(not_a_folder) in capsys.readouterr().err


# --- a run that is still going, or whose process died ---------------------------------------------


def test_an_interrupted_run_summary_counts_every_journaled_call(tmp_path):
    interrupted_store = interrupted_review(tmp_path / "runs")
    record = load_run(store=interrupted_store)
    calls = record.journal[record.journal["kind"] == "agent"]
    assert record.status == "interrupted" and len(calls) == KILLED_AFTER
    usage = record.usage.cumulative  # the call asked as the process died counts, its cost unknown
    assert usage.agents == len(calls) + 1 and usage.unanswered == 1
    assert (record.journal["status"] == "unanswered").sum() == 1
    assert sum(phase.done for phase in record.snapshot.phases) == len(calls)
    assert record.usage.attempt.tokens == calls["tokens"].sum()
    assert record.attempts[-1].status == "interrupted"
    assert interrupted_store.snapshot(record.run_id) == record.snapshot


def test_a_live_run_summary_counts_every_call_journaled_so_far(store):
    seen = {}
    workflows = registry()

    async def look(ctx, args):
        ctx.phase("Steps")  # the snapshot is rewritten here, before any call
        for number in range(3):
            await ctx.agent(f"step {number}", label=f"step-{number}")
        seen["stored"] = load_run(ctx.run_id, store=store)

    workflows.register({"name": "look", "description": "d", "phases": ["Steps"]}, look)
    launch("look", store, workflows)
    live = seen["stored"].snapshot
    assert live.status == "running" and [(phase.title, phase.done) for phase in live.phases] == [("Steps", 3)]
    assert live.usage.attempt.agents == live.usage.cumulative.agents == 3
    assert json.loads(store.paths(live.run_id).snapshot.read_text())["status"] == "completed"

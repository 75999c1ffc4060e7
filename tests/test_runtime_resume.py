"""Resume: the script re-runs and every unchanged call comes back from the journal, wherever it sits."""

from __future__ import annotations

import asyncio
import json

import pytest
from runtime_support import CountingRunner, FailingRunner, journal_records, launch, registry

from alp_nb.runtime import (
    NO_USAGE,
    MockAgentRunner,
    RunnerOutput,
    RunStore,
    WorkflowInputError,
    WorkflowRegistry,
    call_workflow_tool,
)


def test_resume_serves_every_unchanged_call_from_the_journal(store):
    first = launch("fanout", store, args={"calls": 6})
    runner, received = MockAgentRunner(), []
    again = launch("fanout", store, resume=first.run_id, runner=runner, on_event=received.append)
    assert runner.calls == [] and again.result == first.result and again.status == "completed"
    assert {event["status"] for event in received if event["type"] == "workflow_agent"} == {"cached"}
    served = [event for event in store.read_events(first.run_id) if event.type == "calls_cached"]
    assert sorted(seq for event in served for seq in event.served(10**6)) == sorted(
        line["seq"] for line in journal_records(store, first.run_id))  # each, in a few bytes on disk
    assert again.task.attempts[-1].cached == 6 and again.launched.resumed and again.launched.attempt == 2


def test_resume_finds_parallel_calls_whatever_order_they_start_in(store):
    order = list(range(8))
    workflows = WorkflowRegistry()

    async def shuffled(ctx, args):
        return sorted(await ctx.parallel([lambda i=i: ctx.agent(f"item {i}", label=f"item-{i}") for i in order]))

    workflows.register({"name": "shuffled", "description": "d"}, shuffled)
    first = launch("shuffled", store, workflows)
    order.reverse()
    runner = MockAgentRunner()
    again = launch("shuffled", store, workflows, resume=first.run_id, runner=runner)
    assert runner.calls == [] and again.result == first.result


def test_resume_inside_a_pipeline_reruns_only_the_failed_item_stage(store):
    first = launch("staged", store, runner=FailingRunner({"second-c"}))  # the last item, so no sibling is cancelled
    assert first.status == "failed"
    runner = MockAgentRunner()
    again = launch("staged", store, resume=first.run_id, runner=runner)
    assert runner.calls == ["second-c"] and again.status == "completed"
    assert again.result == launch("staged", RunStore(store.root / "clean")).result


def test_resume_inside_a_nested_workflow_reuses_parent_and_child_calls(store):
    first = launch("parent", store, runner=FailingRunner({"child-call"}))
    assert first.status == "failed"
    runner = MockAgentRunner()
    again = launch("parent", store, resume=first.run_id, runner=runner)
    assert runner.calls == ["child-call"] and again.status == "completed"
    third = MockAgentRunner()
    launch("parent", store, resume=first.run_id, runner=third)
    assert third.calls == []


def test_a_changed_call_reruns_while_unchanged_calls_hit_the_journal(store):
    wording = {"prompt": "original"}
    workflows = WorkflowRegistry()

    async def two_calls(ctx, args):
        return [await ctx.agent("stable", label="stable"), await ctx.agent(wording["prompt"], label="changing")]

    workflows.register({"name": "two", "description": "d"}, two_calls)
    first = launch("two", store, workflows)
    wording["prompt"] = "edited"
    runner = MockAgentRunner()
    launch("two", store, workflows, resume=first.run_id, runner=runner)
    assert runner.calls == ["changing"]


def test_resume_args_default_to_the_saved_ones_and_must_match_when_given(store):
    first = launch("fanout", store, args={"calls": 2})
    assert launch("fanout", store, resume=first.run_id).result == first.result
    assert launch("fanout", store, args={"calls": 2}, resume=first.run_id).status == "completed"
    with pytest.raises(WorkflowInputError) as caught:
        launch("fanout", store, args={"calls": 3}, resume=first.run_id)
    assert caught.value.code == "ARGS_MISMATCH"


def test_resume_args_must_match_the_saved_args_as_json(store):
    first = launch("sequence", store, args={"flag": 1})
    for different in ({"flag": True}, {"flag": 1.0}):
        with pytest.raises(WorkflowInputError) as refused:
            launch("sequence", store, args=different, resume=first.run_id)
        assert refused.value.code == "ARGS_MISMATCH"


@pytest.mark.parametrize("saved_args", [[1], {"budget": "lots"}])
def test_a_snapshot_with_malformed_args_is_refused_naming_the_args_and_loses_nothing(store, saved_args):
    first = launch("sequence", store)
    path = store.paths(first.run_id).snapshot
    snapshot = json.loads(path.read_text())
    snapshot["args"] = saved_args
    path.write_text(json.dumps(snapshot))
    output = store.paths(first.run_id).output.read_text()
    result = asyncio.run(call_workflow_tool({"name": "sequence", "resume_from_run_id": first.run_id},
                                            store=store, registry=registry()))
    assert result.get("isError") is True and result["error"]["code"] == "CORRUPT_RUN"
    assert result["error"]["message"].startswith(f"{first.run_id}.json args")
    assert store.paths(first.run_id).output.read_text() == output


def test_a_repeated_call_is_served_from_the_journal_so_a_resume_returns_what_the_run_returned(store):
    runner = CountingRunner()
    fresh = launch("twice", store, runner=runner)
    resumed = launch("twice", store, resume=fresh.run_id, runner=CountingRunner())
    assert fresh.result == ["answer 1", "answer 1"] and resumed.result == fresh.result
    assert runner.calls == 1 and len(journal_records(store, fresh.run_id)) == 1
    assert fresh.task.attempts[0].cached == 1


def test_a_fresh_call_returns_the_value_a_resume_would_read_from_the_journal(store):
    class NotPlainJson:
        blocking = False

        def run(self, prompt, schema, label):
            return RunnerOutput({1: ("a", "b")}, 1)

    fresh = launch("sequence", store, args={"calls": 1}, runner=NotPlainJson())
    resumed = launch("sequence", store, resume=fresh.run_id, runner=NotPlainJson())
    assert fresh.result == resumed.result == [{"1": ["a", "b"]}]


def test_resume_requires_the_same_workflow_name(store):
    first = launch("fanout", store)
    with pytest.raises(WorkflowInputError) as caught:
        launch("sequence", store, resume=first.run_id)
    assert caught.value.code == "WORKFLOW_MISMATCH"
    assert "belongs to workflow `fanout`, not `sequence`" in caught.value.message


def test_resume_of_a_completed_run_is_all_cached_and_adds_an_attempt(store):
    first = launch("sequence", store)
    again = launch("sequence", store, resume=first.run_id)
    assert [attempt.status for attempt in again.task.attempts] == ["completed", "completed"]
    assert again.task.attempts[1].usage.agents == 0 and again.task.attempts[1].cached == 3


@pytest.mark.parametrize("run_id", ["../../etc/x", "wf_x_0123456789abcdef/../../y", "/etc/passwd",
                                    "wf_../_0123456789abcdef", "wf_x_0123456789ABCDEF", ""])
def test_a_run_id_that_could_leave_the_store_is_refused_before_any_path_is_built(tmp_path, run_id):
    store = RunStore(tmp_path / "runs")
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(WorkflowInputError) as caught:
        launch("fanout", store, resume=run_id)
    assert caught.value.code == "INVALID_RUN_ID"
    assert sorted(tmp_path.rglob("*")) == before


def test_a_refused_resume_creates_no_lock_file(store):
    first = launch("fanout", store)
    lock = store.paths(first.run_id).lock
    lock.unlink()
    for name, args in (("sequence", None), ("fanout", {"calls": 9})):
        with pytest.raises(WorkflowInputError):
            launch(name, store, args=args, resume=first.run_id)
    assert not lock.exists()


def test_resuming_an_unknown_run_is_refused_and_creates_nothing(store):
    launch("sequence", store)
    files = sorted(store.root.iterdir())
    with pytest.raises(WorkflowInputError) as caught:
        launch("sequence", store, resume="wf_sequence_0000000000000000")
    assert caught.value.code == "RUN_NOT_FOUND" and sorted(store.root.iterdir()) == files


def test_a_torn_last_journal_line_is_dropped_with_a_warning_and_its_call_rerun(store):
    first = launch("sequence", store)
    journal = store.paths(first.run_id).journal
    text = journal.read_text()
    journal.write_text(text[: len(text) - 20])  # the last line loses its end, as in a crash mid-write
    runner = MockAgentRunner()
    with pytest.warns(RuntimeWarning, match="line 6 is incomplete"):
        again = launch("sequence", store, resume=first.run_id, runner=runner)
    assert runner.calls == ["step-2"] and again.result == first.result
    lines = journal_records(store, first.run_id, asks=True)
    assert [(line["kind"], line["label"]) for line in lines] == [
        ("ask", "step-0"), ("agent", "step-0"), ("ask", "step-1"), ("agent", "step-1"), ("ask", "step-2"),
        ("ask", "step-2"), ("agent", "step-2")]  # the torn answer's ask stays, unanswered: the resume asked again
    assert [line["seq"] for line in lines] == [1, 2, 3, 4, 5, 6, 7]


def test_a_complete_last_line_missing_only_its_newline_is_kept(store):
    first = launch("sequence", store)
    journal = store.paths(first.run_id).journal
    journal.write_text(journal.read_text().rstrip("\n"))
    runner = MockAgentRunner()
    again = launch("sequence", store, resume=first.run_id, runner=runner)
    assert runner.calls == [] and again.result == first.result
    assert journal.read_text().endswith("}\n") and len(journal.read_text().splitlines()) == 6


def test_a_bad_line_in_the_middle_of_the_journal_is_an_error_naming_the_line_and_nothing_is_written(store):
    first = launch("sequence", store)
    journal = store.paths(first.run_id).journal
    lines = journal.read_text().splitlines(keepends=True)
    lines[1] = '{"key": "agent-0123456789", "valu\n'
    journal.write_text("".join(lines))
    snapshot_before = store.paths(first.run_id).snapshot.read_bytes()
    with pytest.raises(WorkflowInputError) as caught:
        launch("sequence", store, resume=first.run_id)
    assert caught.value.code == "JOURNAL_CORRUPT"
    assert caught.value.message.startswith(f"{journal.name} line 2: ")
    assert store.paths(first.run_id).snapshot.read_bytes() == snapshot_before
    assert not store.is_active(first.run_id)


def test_resume_after_a_crash_marks_the_dead_attempt_interrupted_with_its_journaled_usage(store):
    first = launch("sequence", store, runner=MockAgentRunner(tokens=4))
    snapshot = store.read_snapshot(first.run_id)
    dead = snapshot.attempts[0].replace(status="running", usage=NO_USAGE)
    store.write_snapshot(snapshot.replace(status="running", attempts=(dead,)))
    assert store.snapshot(first.run_id).status == "interrupted"
    again = launch("sequence", store, resume=first.run_id)
    assert [attempt.status for attempt in again.task.attempts] == ["interrupted", "completed"]
    assert again.task.attempts[0].usage.to_json() == {"agents": 3, "tokens": 12}
    assert again.task.usage.cumulative.tokens == 12

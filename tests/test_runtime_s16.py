"""The s16 reference runtime: its journals resume here, and each of its nine known defects is fixed.

One test per defect of ``reference/s16-runtime.md``, named after it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading

import pytest
from runtime_support import CountingRunner, FailingRunner, journal_records, launch

from alp_nb.replay import load_run
from alp_nb.runtime import (
    MockAgentRunner,
    RunnerOutput,
    RunStore,
    WorkflowInputError,
    WorkflowRegistry,
    call_key,
    run_workflow,
)
from alp_nb.runtime.runners import mock_value


def journal_labels(store, run_id):
    return [record["label"] for record in journal_records(store, run_id) if record["kind"] == "agent"]


def s16_key(label, prompt, schema):
    """The reference's formula, written out from the reference page."""
    basis = "agent|" + label + "|" + prompt + "|" + json.dumps(schema, sort_keys=True)
    return f"agent-{int(hashlib.sha256(basis.encode()).hexdigest(), 16) % 10**10:010d}"


def test_journal_written_by_s16_is_resumed_with_every_call_from_the_cache(tmp_path):
    runtime = tmp_path / ".runtime"
    runtime.mkdir()
    run_id = "wf_review-changes_0123456789abcdef"
    schema = {"type": "object", "properties": {"isReal": {"type": "boolean"}}, "required": ["isReal"]}
    workflows = WorkflowRegistry()

    async def s16_style(ctx, args):
        unlabelled = await ctx.agent("a prompt without a label, long enough")
        checked = await ctx.agent("check it", schema=schema, label="verify:x")
        return [unlabelled, checked]

    workflows.register({"name": "review-changes", "description": "Review code changes"}, s16_style)
    (runtime / f"{run_id}.json").write_text(json.dumps({
        "runId": run_id, "workflowName": "review-changes", "args": {"changes": "diff"},
        "task": {"taskId": f"local_workflow_{run_id}", "taskType": "local_workflow", "runId": run_id,
                 "workflowName": "review-changes", "status": "completed", "usage": {"agents": 2, "tokens": 40},
                 "progress": [{"type": "workflow_phase", "title": "Review"},
                              {"type": "workflow_agent", "label": "verify:x", "phase": "Review", "status": "done"},
                              {"type": "workflow_log", "message": "done"}]},
    }, indent=2))
    (runtime / f"{run_id}.journal.jsonl").write_text(
        json.dumps({"key": s16_key("a prompt without a label...", "a prompt without a label, long enough", None),
                    "value": "old text"}) + "\n"
        + json.dumps({"key": s16_key("verify:x", "check it", schema), "value": {"isReal": True}}) + "\n")
    (runtime / f"{run_id}.lock").write_text("")
    (runtime / "last_run.txt").write_text(run_id)

    store = RunStore(runtime)
    before = load_run(run_id, store=store)
    assert before.status == "completed" and before.usage.cumulative.tokens == 40
    assert len(before.journal) == 2 and "2 lines carry no checksum" in before.warnings[0]
    runner = MockAgentRunner()
    resumed = asyncio.run(run_workflow("review-changes", None, run_id, store=store, registry=workflows,
                                       runner=runner))
    assert runner.calls == [] and resumed.result == ["old text", {"isReal": True}]
    assert dict(resumed.task.args) == {"changes": "diff"}
    assert resumed.task.usage.cumulative.to_json() == {"agents": 2, "tokens": 40}
    assert [attempt.status for attempt in resumed.task.attempts] == ["completed", "completed"]


def test_an_empty_label_finds_the_call_s16_journaled_under_its_default_label(tmp_path):
    run_id = "wf_empty-label_0123456789abcdef"
    store = RunStore(tmp_path / ".runtime")
    store.root.mkdir()
    prompt = "a prompt s16 labelled for us"
    store.paths(run_id).snapshot.write_text(json.dumps({
        "runId": run_id, "workflowName": "empty-label", "args": {},
        "task": {"status": "completed", "usage": {"agents": 1, "tokens": 3}, "progress": []}}))
    store.paths(run_id).journal.write_text(
        json.dumps({"key": s16_key(prompt[:24] + "...", prompt, None), "value": "from s16"}) + "\n")
    workflows = WorkflowRegistry()

    async def empty_label(ctx, args):
        return await ctx.agent(prompt, label="")  # s16: `label or prompt[:24] + "..."`

    workflows.register({"name": "empty-label", "description": "d"}, empty_label)
    runner = MockAgentRunner()
    assert launch("empty-label", store, workflows, resume=run_id, runner=runner).result == "from s16"
    assert runner.calls == []


def test_s16_defect_1_call_keys_are_32_hex_content_hashes_and_short_keys_still_read(store):
    key = call_key("agent", "label", "prompt", {"type": "object"})
    assert key.startswith("agent-") and len(key) == len("agent-") + 32 and int(key[6:], 16) >= 0
    assert key == call_key("agent", "label", "prompt", {"type": "object"})
    assert len({call_key("agent", f"l{i}", "p", None) for i in range(10_000)}) == 10_000
    first = launch("sequence", store)
    assert all(len(record["key"]) == 38 for record in journal_records(store, first.run_id, asks=True))


def test_s16_defect_2_budget_counts_cached_tokens_so_a_resume_never_finishes_over_budget(store):
    first = launch("sequence", store, args={"calls": 3, "budget": 25}, runner=FailingRunner({"step-2"}, tokens=10))
    assert first.status == "failed" and first.task.usage.cumulative.tokens == 20
    again = launch("sequence", store, resume=first.run_id, runner=MockAgentRunner(tokens=10))
    assert again.status == "failed" and again.task.usage.cumulative.tokens == 30
    assert again.error == "`step-2` took the run over its token budget (30 of 25 tokens); its result is journaled"
    assert journal_labels(store, first.run_id) == ["step-0", "step-1", "step-2"]
    before = store.paths(first.run_id).snapshot.read_bytes()
    with pytest.raises(WorkflowInputError) as refused:  # it would stop at its first call: refused, nothing written
        launch("sequence", store, resume=first.run_id, runner=MockAgentRunner(tokens=10))
    assert refused.value.code == "BUDGET_EXCEEDED" and "(30 of 25 tokens)" in refused.value.message
    assert "--budget N" in refused.value.message
    assert store.paths(first.run_id).snapshot.read_bytes() == before


def test_s16_defect_2_the_call_that_trips_the_budget_is_journaled_and_counted(store):
    result = launch("sequence", store, args={"calls": 3, "budget": 15}, runner=MockAgentRunner(tokens=10))
    assert result.status == "failed" and result.task.usage.attempt.to_json() == {"agents": 2, "tokens": 20}
    assert journal_labels(store, result.run_id) == ["step-0", "step-1"]


def test_s16_defect_3_usage_is_cumulative_across_attempts(store):
    first = launch("sequence", store, runner=MockAgentRunner(tokens=5))
    again = launch("sequence", store, resume=first.run_id)
    assert again.task.usage.attempt.to_json() == {"agents": 0, "tokens": 0}
    assert again.task.usage.cumulative.to_json() == {"agents": 3, "tokens": 15}
    assert store.read_snapshot(first.run_id).usage.cumulative.tokens == 15


def test_s16_defect_4_snapshot_and_last_run_are_current_during_the_run_and_a_dead_run_reads_interrupted(store):
    seen = {}
    workflows = WorkflowRegistry()

    async def look(ctx, args):
        ctx.phase("Inspect")
        await ctx.agent("one", label="one")
        ctx.phase("Report")
        seen["snapshot"] = json.loads(store.paths(ctx.run_id).snapshot.read_text())
        seen["last_run"] = store.last_run()
        seen["live_status"] = store.snapshot(ctx.run_id).status

    workflows.register({"name": "look", "description": "d", "phases": ["Inspect", "Report"]}, look)
    result = launch("look", store, workflows)
    assert seen["snapshot"]["status"] == "running" and seen["last_run"] == result.run_id
    assert seen["snapshot"]["phases"] == [{"title": "Inspect", "done": 1, "cached": 0, "failed": 0, "cancelled": 0},
                                          {"title": "Report", "done": 0, "cached": 0, "failed": 0, "cancelled": 0}]
    assert seen["live_status"] == "running" and seen["snapshot"]["pid"] == os.getpid()
    stored = store.read_snapshot(result.run_id)
    store.write_snapshot(stored.replace(status="running"))  # as if the process had died
    assert store.snapshot(result.run_id).status == "interrupted"


def test_s16_defect_5_a_failure_in_parallel_stops_siblings_from_being_journaled_later(store):
    failed = threading.Event()

    class Blocking:
        """A sync runner (so each call runs in a thread, as s16's did): item-0 fails at once, the others answer
        only once the run has seen that failure (the step in which it cancels them), whatever the machine's speed."""

        def __init__(self):
            self.threads = []

        def run(self, prompt, schema, label):
            self.threads.append(threading.current_thread())
            if label == "item-0":
                raise RuntimeError("first call failed")
            failed.wait(timeout=60)  # a safety net: the failure is seen at once unless the run is broken
            return RunnerOutput(label, 1)

    def on_event(event):
        if event["type"] == "workflow_agent" and event["status"] == "failed":
            failed.set()

    runner = Blocking()
    result = launch("fanout", store, args={"calls": 3}, runner=runner, on_event=on_event)
    assert result.status == "failed"
    journal = store.paths(result.run_id).journal.read_text()
    for thread in runner.threads:  # every runner call has ended: nothing may reach the journal after the run returned
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in runner.threads)
    assert store.paths(result.run_id).journal.read_text() == journal
    # the siblings' threads could not be stopped: the run waited for their answers and recorded them as spent
    spent = sorted((line["label"], line["reason"], line["tokens"]) for line in journal_records(store, result.run_id))
    assert spent == [("item-0", "failed", 0), ("item-1", "cancelled", 1), ("item-2", "cancelled", 1)]
    assert result.task.usage.attempt.tokens == 2


def test_s16_defect_6_the_agent_cap_counts_distinct_calls_and_a_stopped_run_finishes_by_resuming(store):
    workflows = WorkflowRegistry()

    async def repeats(ctx, args):
        same = [await ctx.agent("same", label="same") for _ in range(5)]
        return same + [await ctx.agent(f"other {i}", label=f"other-{i}") for i in range(2)]

    workflows.register({"name": "repeats", "description": "d"}, repeats)
    runner = MockAgentRunner()
    assert launch("repeats", store, workflows, agent_cap=3, runner=runner).status == "completed"
    assert runner.calls == ["same", "other-0", "other-1"]  # a repeated call is one call: run once

    stopped = launch("sequence", store, args={"calls": 4}, agent_cap=4, runner=FailingRunner({"step-3"}))
    assert stopped.status == "failed"
    assert launch("sequence", store, resume=stopped.run_id, agent_cap=4).status == "completed"

    capped = launch("sequence", store, args={"calls": 4}, agent_cap=2)
    assert capped.status == "failed" and capped.error.startswith("agent cap of 2 distinct calls reached")
    runner = MockAgentRunner()
    assert launch("sequence", store, resume=capped.run_id, agent_cap=4, runner=runner).status == "completed"
    assert runner.calls == ["step-2", "step-3"]


def test_the_agent_cap_bounds_how_often_the_runner_is_called(store):
    runner = CountingRunner()
    launch("twice", store, args={"times": 5}, runner=runner, agent_cap=1)
    assert runner.calls <= 1


def test_s16_defect_7_a_torn_last_journal_line_does_not_prevent_resuming(store):
    first = launch("sequence", store)
    journal = store.paths(first.run_id).journal
    journal.write_bytes(journal.read_bytes()[:-7])
    with pytest.warns(RuntimeWarning, match="torn write"):
        assert launch("sequence", store, resume=first.run_id).status == "completed"


def test_s16_defect_8_an_in_process_runner_is_never_sent_to_a_thread(store, monkeypatch):
    async def no_threads(*args, **kwargs):
        raise AssertionError("asyncio.to_thread was used")

    monkeypatch.setattr(asyncio, "to_thread", no_threads)
    assert launch("fanout", store, args={"calls": 20}).status == "completed"


def test_s16_defect_9_the_mock_runner_honours_enum():
    import random

    values = {mock_value({"type": "string", "enum": ["low", "high"]}, random.Random(seed)) for seed in range(40)}
    assert values == {"low", "high"}
    nested = {"type": "object", "properties": {"level": {"enum": [1, 2]}}, "required": ["level"]}
    assert MockAgentRunner().run("p", nested, "l").value["level"] in (1, 2)


def test_refusals_have_stable_codes(store):
    with pytest.raises(WorkflowInputError) as caught:
        launch("nope", store)
    assert caught.value.code == "UNKNOWN_WORKFLOW"
    with pytest.raises(WorkflowInputError) as caught:
        launch("sequence", store, agent_cap=0)
    assert caught.value.code == "INVALID_OPTION"

"""The ExecutionContext primitives, the runners and live progress, each held by a rule-named test."""

from __future__ import annotations

import asyncio
import json
import threading

import jsonschema
import pytest
from runtime_support import (
    FailingRunner,
    ThreadRecordingRunner,
    YieldingRunner,
    journal_records,
    one_workflow,
    registry,
)

from alp_nb.runtime import (
    EventStream,
    MockAgentRunner,
    RunnerOutput,
    RunStore,
    WorkflowInputError,
    run_workflow,
)
from alp_nb.runtime.runners import mock_value

OBJECT_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def run(name, store, workflows, **options):
    return asyncio.run(run_workflow(name, store=store, registry=workflows, **options))


def watched(name, store, workflows, **options):
    """``run``, and every event its subscribers received (a call's steps reach them, not the events file)."""
    received = []
    return run(name, store, workflows, on_event=received.append, **options), received


def journal(store, run_id):
    return journal_records(store, run_id)


def events(store, run_id):
    return [json.loads(line) for line in store.paths(run_id).events.read_text().splitlines()]


class ScriptedRunner:
    """Answers each label from a list of values in turn (to return invalid output first)."""

    blocking = False

    def __init__(self, answers):
        self.answers = {label: list(values) for label, values in answers.items()}
        self.prompts = []

    def run(self, prompt, schema, label):
        self.prompts.append(prompt)
        return RunnerOutput(self.answers[label].pop(0), 7)


async def ask(ctx, args):
    return await ctx.agent("question", schema=OBJECT_SCHEMA, label="q")


def test_agent_with_a_schema_returns_the_validated_object_and_journals_the_call(store):
    result = run("wf", store, one_workflow(ask), runner=ScriptedRunner({"q": [{"ok": True}]}))
    assert result.status == "completed" and result.result == {"ok": True}
    asked, line = journal_records(store, result.run_id, asks=True)  # the ask is on disk before the runner is
    assert (asked["kind"], asked["key"], asked["label"], asked["attempts"], asked["seq"]) == (
        "ask", line["key"], "q", 1, 1)
    assert line["label"] == "q" and line["value"] == {"ok": True} and line["schema"] == OBJECT_SCHEMA
    assert line["tokens"] == 7 and line["attempts"] == 1 and line["kind"] == "agent" and line["prompt"] == "question"
    raw_ask, raw_answer = (json.loads(text) for text in store.paths(result.run_id).journal.read_text().splitlines())
    assert set(raw_ask) == {"v", "seq", "kind", "key", "label", "prompt", "schema", "at", "epoch", "sum"}
    assert set(raw_answer) == {"v", "seq", "kind", "ask", "value", "tokens", "at", "sum"}  # what the call is: its ask's
    assert raw_answer["v"] == 4 and raw_answer["seq"] == 2 and raw_answer["ask"] == 1 and list(raw_answer)[-1] == "sum"
    assert raw_ask["at"] == 0.0 and 0 <= raw_answer["at"] < 1
    assert line["ended"] - line["started"] == pytest.approx(raw_answer["at"], abs=1e-6)


def test_agent_output_failing_its_schema_is_retried_once_with_a_reminder(store):
    runner = ScriptedRunner({"q": [{"ok": "yes"}, {"ok": False}]})
    result, received = watched("wf", store, one_workflow(ask), runner=runner)
    assert result.result == {"ok": False}
    assert runner.prompts == ["question", "question\n\nReturn valid JSON."]
    spent, line = journal(store, result.run_id)  # each answer on one line: the first spent, the second kept
    assert (spent["kind"], spent["reason"], spent["attempts"], spent["tokens"]) == ("spend", "retried", 1, 7)
    assert spent["issues"] == ["ok: 'yes' is not of type 'boolean'"]  # why, on the line itself
    assert line["kind"] == "agent" and line["attempts"] == 2 and line["tokens"] == 7
    assert result.task.usage.attempt.to_json() == {"agents": 1, "tokens": 14}
    retry = [event for event in received if event.get("status") == "retry"]
    assert retry[0]["issues"] == ["ok: 'yes' is not of type 'boolean'"]


def test_agent_output_failing_its_schema_twice_fails_the_run_with_a_clear_error_and_journals_no_call(store):
    result = run("wf", store, one_workflow(ask), runner=ScriptedRunner({"q": [{}, {"ok": 1}]}))
    assert result.status == "failed"
    assert result.error == ("agent `q` returned output that does not match its schema after one retry: "
                            "ok: 1 is not of type 'boolean'")
    lines = journal(store, result.run_id)
    assert [(line["kind"], line["reason"], line["tokens"]) for line in lines] == [("spend", "retried", 7),
                                                                                  ("spend", "refused", 7)]
    assert not [line for line in lines if line["kind"] == "agent"] and result.task.usage.attempt.tokens == 14
    assert store.read_output(result.run_id) == {"error": result.error}


def test_agent_with_an_invalid_json_schema_is_refused(store):
    async def bad(ctx, args):
        return await ctx.agent("q", schema={"type": "no-such-type"})

    result = run("wf", store, one_workflow(bad))
    assert result.status == "failed" and "invalid JSON Schema" in result.error


def test_an_invalid_schema_is_refused_before_the_runner_is_called(store):
    async def bad_schema(ctx, args):
        return await ctx.agent("q", schema={"type": "no-such-type"}, label="q")

    runner = MockAgentRunner()
    result = run("wf", store, one_workflow(bad_schema), runner=runner)
    assert result.status == "failed" and "schema" in result.error.lower()
    assert runner.calls == []


@pytest.mark.parametrize(("call", "field"), [
    ({"prompt": "p", "label": "x", "phase": 5}, "phase"),
    ({"prompt": "bad \ud800 prompt", "label": "x"}, "prompt"),
])
def test_a_bad_agent_argument_fails_the_run_with_an_error_naming_it(store, call, field):
    async def script(ctx, args):
        return await ctx.agent(**call)

    result = run("wf", store, one_workflow(script))
    assert result.status == "failed" and field in result.error and "TypeError" not in result.error
    assert "schema" not in result.error


@pytest.mark.parametrize("label", [None, ""])
def test_agent_label_defaults_to_the_first_24_prompt_characters_and_an_ellipsis(store, label):
    async def unlabelled(ctx, args):
        return await ctx.agent("a prompt that is longer than twenty-four characters", label=label)

    result = run("wf", store, one_workflow(unlabelled))
    assert journal(store, result.run_id)[0]["label"] == "a prompt that is longer ..."


def test_parallel_returns_results_in_thunk_order_after_all_finish(store):
    finished = []

    class Staggered:
        async def run(self, prompt, schema, label):
            await asyncio.sleep(0.02 if label == "slow" else 0)
            finished.append(label)
            return RunnerOutput(label, 1)

    async def script(ctx, args):
        values = await ctx.parallel([lambda: ctx.agent("s", label="slow"), lambda: ctx.agent("f", label="fast")])
        return {"values": values, "finished_before_return": list(finished)}

    result = run("wf", store, one_workflow(script), runner=Staggered())
    assert result.result == {"values": ["slow", "fast"], "finished_before_return": ["fast", "slow"]}


def test_parallel_failure_cancels_pending_siblings_keeps_completed_ones_journaled_and_raises(store):
    started, finished = [], []

    class Mixed:
        async def run(self, prompt, schema, label):
            started.append(label)
            if label == "slow":
                await asyncio.sleep(30)
            if label == "broken":
                await asyncio.sleep(0.01)
                raise RuntimeError("runner broke")
            finished.append(label)
            return RunnerOutput(label, 1)

    async def script(ctx, args):
        ctx.phase("Fan-out")
        return await ctx.parallel([lambda: ctx.agent("a", label="fast"), lambda: ctx.agent("b", label="broken"),
                                   lambda: ctx.agent("c", label="slow")])

    result, received = watched("wf", store, one_workflow(script, phases=("Fan-out",)), runner=Mixed())
    assert result.status == "failed" and result.error == "RuntimeError: runner broke"
    assert sorted(started) == ["broken", "fast", "slow"] and finished == ["fast"]
    lines = journal(store, result.run_id)
    assert [line["label"] for line in lines if line["kind"] == "agent"] == ["fast"]
    # neither the runner that raised nor the async call cancelled beside it handed anything back
    assert sorted((line["label"], line["reason"], line["tokens"]) for line in lines if line["kind"] == "spend") == [
        ("broken", "failed", 0), ("slow", "cancelled", 0)]
    assert result.task.usage.attempt.unanswered == 0
    outcomes = {event["label"]: (event["status"], event.get("error")) for event in received
                if event["type"] == "workflow_agent" and event["status"] != "started"}
    assert outcomes == {"fast": ("done", None), "broken": ("failed", "RuntimeError: runner broke"),
                        "slow": ("cancelled", None)}
    (phase,) = result.task.phases
    assert (phase.done, phase.failed, phase.cancelled) == (1, 1, 1)


def test_a_failure_in_parallel_starts_no_new_runner_call(store):
    runner = YieldingRunner(fail={"item-0"})
    result = asyncio.run(run_workflow("fanout", {"calls": 5}, store=store, registry=registry(), runner=runner,
                                      concurrency=1))
    assert result.status == "failed"
    assert runner.calls == ["item-0"]


def test_identical_calls_in_flight_at_once_share_one_runner_call(store):
    async def twins(ctx, args):
        return await ctx.parallel([lambda: ctx.agent("same", label="same") for _ in range(3)])

    runner = YieldingRunner()
    result = run("wf", store, one_workflow(twins), runner=runner)
    assert result.result == ["answer to same"] * 3 and runner.calls == ["same"]
    assert [line["label"] for line in journal(store, result.run_id)] == ["same"]
    assert result.task.usage.attempt.agents == 1 and result.task.attempts[0].cached == 2


def test_parallel_refuses_entries_that_are_not_awaitable(store):
    async def script(ctx, args):
        return await ctx.parallel([lambda: 42])

    result = run("wf", store, one_workflow(script))
    assert result.status == "failed" and "parallel() takes callables that return awaitables" in result.error


def test_pipeline_has_no_barrier_between_stages_and_passes_previous_item_and_index(store):
    seen = []
    a_reached_stage_two = asyncio.Event()

    async def first(previous, item, index):
        if item == "b":  # b stays in stage one until a has reached stage two
            await asyncio.wait_for(a_reached_stage_two.wait(), 5)
        return f"{item}1"

    async def second(previous, item, index):
        seen.append((previous, item, index))
        if item == "a":
            a_reached_stage_two.set()
        return f"{previous}2"

    async def script(ctx, args):
        return await ctx.pipeline(["a", "b"], first, second)

    result = run("wf", store, one_workflow(script))
    assert result.status == "completed" and result.result == ["a12", "b12"]
    assert seen == [("a1", "a", 0), ("b1", "b", 1)]


def test_pipeline_sync_stages_and_agent_stages_mix(store):
    result = run("staged", store, registry())
    assert result.status == "completed"
    assert result.result == [f"mock answer to second-{item}#{index}" for index, item in enumerate("abc")]


def test_phase_is_announced_once_and_calls_count_under_the_current_phase(store):
    async def script(ctx, args):
        for index in range(3):
            ctx.phase("Work")
            await ctx.agent(f"call {index}", label=f"call-{index}")
        await ctx.agent("elsewhere", label="explicit", phase="Other")

    result = run("wf", store, one_workflow(script, phases=("Plan", "Work")))
    assert [event["title"] for event in events(store, result.run_id) if event["type"] == "workflow_phase"] == ["Work"]
    assert [(phase.title, phase.done) for phase in result.task.phases] == [("Plan", 0), ("Work", 3), ("Other", 1)]
    assert journal(store, result.run_id)[-1]["phase"] == "Other"


def test_log_lines_reach_events_and_the_snapshot(store):
    async def script(ctx, args):
        ctx.log("first")
        ctx.log({"count": 2})

    result = run("wf", store, one_workflow(script))
    assert result.task.logs == ("first", "{'count': 2}")
    assert [event["message"] for event in events(store, result.run_id) if event["type"] == "workflow_log"] == [
        "first", "{'count': 2}"]


def test_nested_workflow_shares_the_journal_and_tags_its_events(store):
    result, received = watched("parent", store, registry())
    assert result.result == {"own": "mock answer to parent-call", "nested": "mock answer to child-call"}
    assert [line["label"] for line in journal(store, result.run_id)] == ["parent-call", "child-call"]
    nested = [event for event in received if event.get("workflow") == "child"]
    assert {event["type"] for event in nested} == {"workflow_phase", "workflow_agent"}
    assert [event["type"] for event in events(store, result.run_id) if event.get("workflow") == "child"] == [
        "workflow_phase"]  # on disk: the journal holds the calls


def test_workflow_nests_only_one_level(store):
    result = run("grandparent", store, registry())
    assert result.status == "failed"
    assert result.error == "workflow() nests one level: `parent` cannot start `child`"


def test_budget_reports_total_spent_and_remaining(store):
    async def script(ctx, args):
        before = [ctx.budget.total, ctx.budget.spent, ctx.budget.remaining]
        await ctx.agent("one", label="one")
        return [before, [ctx.budget.total, ctx.budget.spent, ctx.budget.remaining]]

    result = asyncio.run(run_workflow("wf", {"budget": 100}, store=store, registry=one_workflow(script),
                                      runner=MockAgentRunner(tokens=30)))
    assert result.result == [[100, 0, 100], [100, 30, 70]]


def test_no_call_starts_once_the_budget_is_spent(store):
    runner = YieldingRunner(tokens=10)
    result = asyncio.run(run_workflow("fanout", {"calls": 3, "budget": 10}, store=store, registry=registry(),
                                      runner=runner, concurrency=1))
    assert result.status == "failed" and "budget" in result.error
    assert runner.calls == ["item-0"]
    assert result.task.usage.attempt.tokens == 10


def test_usage_agents_counts_only_calls_that_reached_the_runner(store):
    runner = YieldingRunner(fail={"item-0"})
    result = asyncio.run(run_workflow("fanout", {"calls": 5}, store=store, registry=registry(), runner=runner,
                                      concurrency=1))
    assert result.status == "failed"
    assert result.task.usage.attempt.agents == len(runner.calls)


def test_budget_must_be_a_positive_integer():
    with pytest.raises(WorkflowInputError) as caught:
        asyncio.run(run_workflow("wf", {"budget": "lots"}, registry=one_workflow(ask)))
    assert caught.value.code == "INVALID_ARGS" and "args.budget" in caught.value.message


def test_args_are_a_private_copy_the_script_cannot_change_in_the_snapshot(store):
    async def script(ctx, args):
        args["topic"] = "changed"
        return ctx.args is args

    result = asyncio.run(run_workflow("wf", {"topic": "kept"}, store=store, registry=one_workflow(script)))
    assert result.result is True and dict(result.task.args) == {"topic": "kept"}


def test_args_must_be_a_json_object():
    for bad in (["list"], {"when": object()}, {1: "int key"}):
        with pytest.raises(WorkflowInputError) as caught:
            asyncio.run(run_workflow("wf", bad, registry=one_workflow(ask)))
        assert caught.value.code == "INVALID_ARGS"


@pytest.mark.parametrize("value", [{"when": object()}, "lone \ud800 surrogate"])
def test_result_that_is_not_json_fails_the_run(store, value):
    async def script(ctx, args):
        return value

    result = run("wf", store, one_workflow(script))
    assert result.status == "failed" and result.error.startswith("the workflow result is not JSON")
    assert store.read_output(result.run_id) == {"error": result.error}


def test_concurrency_limits_runner_calls_in_flight(store):
    class Counting:
        def __init__(self):
            self.active = self.most = 0

        async def run(self, prompt, schema, label):
            self.active += 1
            self.most = max(self.most, self.active)
            await asyncio.sleep(0.001)
            self.active -= 1
            return RunnerOutput(label, 1)

    runner = Counting()
    result = asyncio.run(run_workflow("fanout", {"calls": 20}, store=store, registry=registry(), runner=runner,
                                      concurrency=3))
    assert result.status == "completed" and runner.most == 3


def test_mock_runner_is_called_inline_without_a_thread_hop(store):
    async def script(ctx, args):
        return await ctx.agent("where", label="where")

    main_thread = threading.get_ident()
    runner = MockAgentRunner(responses={"where": lambda prompt, schema, label: threading.get_ident()})
    assert run("wf", store, one_workflow(script), runner=runner).result == main_thread


def test_sync_third_party_runner_runs_in_a_worker_thread(store):
    runner = ThreadRecordingRunner()
    result = asyncio.run(run_workflow("fanout", {"calls": 3}, store=store, registry=registry(), runner=runner))
    assert result.result == {"values": ["threaded item-0", "threaded item-1", "threaded item-2"]}
    assert threading.get_ident() not in runner.threads


def test_runner_answer_that_is_not_runner_output_is_refused(store):
    class Sloppy:
        async def run(self, prompt, schema, label):
            return "bare text"

    result = run("wf", store, one_workflow(ask), runner=Sloppy())
    assert result.status == "failed" and "expected RunnerOutput" in result.error


SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"enum": ["accept", "reject", "revise"]},
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "author": {"type": "object", "properties": {"name": {"type": "string", "minLength": 3}},
                   "required": ["name", "email"]},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2, "maxItems": 3},
        "fixed": {"const": 7},
        "maybe": {"type": ["null", "boolean"]},
    },
    "required": ["verdict", "score", "author", "tags"],
}


@pytest.mark.parametrize("label", [f"label-{index}" for index in range(20)])
def test_mock_runner_output_satisfies_enum_required_nested_objects_and_arrays(label):
    value = MockAgentRunner().run("prompt", SCHEMA, label).value
    jsonschema.validate(value, SCHEMA)
    assert value["verdict"] in ("accept", "reject", "revise") and "email" in value["author"]


def test_mock_runner_is_deterministic_per_call_and_varies_between_calls():
    first, again = MockAgentRunner().run("p", SCHEMA, "x"), MockAgentRunner().run("p", SCHEMA, "x")
    assert first == again
    assert len({json.dumps(MockAgentRunner().run("p", SCHEMA, f"l{i}").value) for i in range(10)}) > 1


@pytest.mark.parametrize("schema", [{"type": "integer", "maximum": -1}, {"type": "number", "maximum": -5}])
def test_mock_values_satisfy_an_upper_bound_below_zero(schema):
    import random

    for seed in range(5):
        jsonschema.validate(mock_value(schema, random.Random(seed)), schema)


def test_mock_runner_enum_choice_covers_every_value():
    import random

    assert {mock_value({"enum": ["x", "y", "z"]}, random.Random(seed)) for seed in range(50)} == {"x", "y", "z"}


def test_subscribers_receive_every_event_in_order_ending_with_the_task_notification(store):
    received = []
    result = asyncio.run(run_workflow("fanout", {"calls": 2}, store=store, registry=registry(),
                                      on_event=received.append))
    types = [event["type"] for event in received]
    assert types[:2] == ["async_launched", "task_started"] and types[-1] == "task_notification"
    assert [event["status"] for event in received if event["type"] == "workflow_agent"] == [
        "started", "done", "started", "done"]
    # the events file holds the rest, each as the subscribers had it: a call's steps are the journal's to hold
    assert [event for event in received if event["type"] != "workflow_agent"] == events(store, result.run_id)
    assert received[-1]["status"] == "completed" and received[-1]["agents"] == 2


def test_event_stream_is_an_async_iterator_that_ends_with_the_run():
    async def main(store):
        stream = EventStream()
        task = asyncio.create_task(run_workflow("sequence", {"calls": 2}, store=store, registry=registry(),
                                                on_event=stream))
        seen = [event["type"] async for event in stream]
        return seen, await task

    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        seen, result = asyncio.run(main(RunStore(folder)))
    assert result.status == "completed" and seen[0] == "async_launched" and seen[-1] == "task_notification"


def test_a_refused_launch_still_ends_the_event_stream(store):
    received = []
    with pytest.raises(WorkflowInputError):
        asyncio.run(run_workflow("missing", store=store, registry=registry(), on_event=received.append))
    assert [(event["type"], event["code"]) for event in received] == [("task_notification", "UNKNOWN_WORKFLOW")]


def test_a_failing_subscriber_is_dropped_with_a_warning_and_the_run_goes_on(store):
    def broken(event):
        raise ValueError("viewer bug")

    with pytest.warns(RuntimeWarning, match="viewer bug"):
        result = asyncio.run(run_workflow("sequence", store=store, registry=registry(), on_event=broken))
    assert result.status == "completed"


def test_cancelling_a_run_marks_it_cancelled_and_releases_its_lock(store):
    class Never:
        async def run(self, prompt, schema, label):
            await asyncio.sleep(30)

    async def main():
        task = asyncio.create_task(run_workflow("sequence", store=store, registry=registry(), runner=Never()))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    (run_id,) = store.run_ids()
    assert store.snapshot(run_id).status == "cancelled" and not store.is_active(run_id)


def test_runner_failure_ends_the_run_failed_with_the_error_in_output_and_snapshot(store):
    result = run("sequence", store, registry(), runner=FailingRunner({"step-1"}))
    assert result.status == "failed" and result.error == "RuntimeError: runner broke on step-1"
    assert store.read_output(result.run_id) == {"error": result.error}
    assert store.snapshot(result.run_id).error == result.error


def test_a_script_error_holding_a_lone_surrogate_fails_the_run_with_readable_files(store):
    async def script(ctx, args):
        raise ValueError("bad text \ud800 here")

    result = run("wf", store, one_workflow(script))
    assert result.status == "failed" and result.error == "ValueError: bad text \\ud800 here"
    assert store.read_output(result.run_id) == {"error": "ValueError: bad text \\ud800 here"}
    assert store.snapshot(result.run_id).error == result.error

"""Raising a run's token budget on resume, and forking a run with some answers or prompts replaced."""

from __future__ import annotations

import asyncio

import pytest
from runtime_support import launch, registry

from alp_nb.runtime import MockAgentRunner, WorkflowInputError, read_journal, run_workflow
from alp_nb.runtime.fork import Fork


def spent_out(store):
    """A ``sequence`` of 4 calls of 10 tokens under a budget of 25: it stops at the third call, over budget."""
    run = launch("sequence", store, args={"calls": 4, "budget": 25}, runner=MockAgentRunner(tokens=10))
    assert run.status == "failed" and run.task.error_code == "BUDGET_EXCEEDED"
    return run


def test_a_run_out_of_budget_finishes_once_its_budget_is_raised_and_the_raise_is_recorded(store):
    run = spent_out(store)
    finished = launch("sequence", store, resume=run.run_id, budget=60, runner=MockAgentRunner(tokens=10))
    assert finished.status == "completed" and finished.task.usage.cumulative.tokens == 40
    snapshot = store.read_snapshot(run.run_id)
    assert snapshot.budget == 60 and [attempt.budget for attempt in snapshot.attempts] == [25, 60]
    assert snapshot.args["budget"] == 25  # the run's args never change
    again = launch("sequence", store, resume=run.run_id)  # a later resume keeps the raised budget
    assert again.status == "completed" and again.task.budget == 60


def test_a_budget_is_only_ever_raised(store):
    run = spent_out(store)
    for budget, problem in ((25, "already has 25 tokens, so budget 25 would not raise it"),
                            (10, "already has 25 tokens"), (0, "positive whole number"),
                            ("lots", "positive whole number")):
        with pytest.raises(WorkflowInputError, match=problem) as refused:
            launch("sequence", store, resume=run.run_id, budget=budget)
        assert refused.value.code == "INVALID_OPTION"


def test_a_budget_cannot_be_raised_through_the_args_nor_given_to_a_new_run_or_one_without_a_budget(store):
    run = spent_out(store)
    with pytest.raises(WorkflowInputError, match="raise a token budget with budget=N") as mismatch:
        launch("sequence", store, resume=run.run_id, args={"calls": 4, "budget": 60})
    assert mismatch.value.code == "ARGS_MISMATCH"
    with pytest.raises(WorkflowInputError, match="a new run takes its budget in its args"):
        launch("sequence", store, budget=60)
    unbudgeted = launch("sequence", store)
    with pytest.raises(WorkflowInputError, match="has no token budget to raise"):
        launch("sequence", store, resume=unbudgeted.run_id, budget=60)


def fork_of(store, source, **fork):
    calls = []
    run = asyncio.run(run_workflow("staged", store=store, registry=registry(), fork=Fork(source.run_id, **fork),
                                   on_call=calls.append))
    return run, {call.label: call.outcome for call in calls}


def test_a_fork_with_one_answer_replaced_reruns_only_the_calls_that_depend_on_it(store):
    source = launch("staged", store, args={"items": ["a", "b", "c"]})
    fork, outcomes = fork_of(store, source, values={"first-b": "another answer"})
    assert fork.status == "completed" and fork.run_id != source.run_id
    assert outcomes == {"first-a": "cached", "second-a": "cached", "first-b": "cached", "second-b": "live",
                        "first-c": "cached", "second-c": "cached"}
    assert fork.result[1] == "mock answer to second-b#1"
    assert fork.task.usage.cumulative.agents == 1  # only the rerun is the fork's own spending
    assert fork.task.fork.run_id == source.run_id and fork.task.fork.values == ("first-b",)
    lines = read_journal(store.paths(fork.run_id).journal, keep_entries=True).entries
    assert [entry.label for entry in lines][:6] == [entry.label for entry in read_journal(
        store.paths(source.run_id).journal, keep_entries=True).entries]


def test_a_fork_with_a_prompt_replaced_asks_it_and_reruns_what_follows_on_every_attempt(store):
    source = launch("staged", store, args={"items": ["a", "b"]})
    fork, outcomes = fork_of(store, source, prompts={"first-a": "first a, asked differently"})
    assert outcomes == {"first-a": "live", "second-a": "cached", "first-b": "cached", "second-b": "cached"}
    entry = next(entry for entry in read_journal(store.paths(fork.run_id).journal, keep_entries=True).entries
                 if entry.label == "first-a" and entry.prompt == "first a, asked differently")
    assert entry.value == "mock answer to first-a"
    resumed = launch("staged", store, resume=fork.run_id, runner=MockAgentRunner(tokens=1))
    assert resumed.status == "completed" and resumed.task.usage.attempt.agents == 0  # still asked the fork's way


def test_a_fork_refuses_a_label_the_source_never_journaled_and_a_value_its_schema_refuses(store):
    source = launch("staged", store, args={"items": ["a"]})
    with pytest.raises(WorkflowInputError, match=r"no call of run .* labelled `first-z` was journaled"):
        fork_of(store, source, values={"first-z": "x"})
    checked = launch("checked", store)
    with pytest.raises(WorkflowInputError, match="does not match its schema") as refused:
        asyncio.run(run_workflow("checked", store=store, registry=registry(),
                                 fork=Fork(checked.run_id, values={"check": {"ok": "yes"}})))
    assert refused.value.code == "INVALID_OPTION"
    assert len(store.run_ids()) == 2  # nothing was reserved for the refused forks

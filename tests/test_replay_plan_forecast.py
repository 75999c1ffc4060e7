"""A plan says what its resume will cost, from the run's own answers, with a range, and whether the budget covers
it, naming the ``--budget`` that would; a resume that cannot finish on its budget says so before it spends."""

from __future__ import annotations

import json

import pytest
from runtime_support import FailingRunner, launch, one_workflow, registry
from s16_support import s16_key

from alp_nb.replay import plan_resume
from alp_nb.runtime import MockAgentRunner, RunStore
from alp_nb.runtime.forecast import forecast_cost
from alp_nb.viz.views.plans import resume_plan_text


def test_a_live_call_is_estimated_from_its_label_then_its_phase_then_every_answer_then_the_run_mean():
    history = [("a", "P", 10), ("a", "P", 14), ("b", "P", 30), ("c", "Q", 100)]
    assert forecast_cost([("a", "Z")], history).__dict__ == {"calls": 1, "low": 10, "expected": 12, "high": 14,
                                                             "guessed": 0}
    assert (forecast_cost([("new", "P")], history).low, forecast_cost([("new", "P")], history).high) == (10, 30)
    assert forecast_cost([("new", "R")], history).high == 100  # every answer the journal holds
    assert forecast_cost([("x", None)], [], run_mean=37.4).__dict__ == {"calls": 1, "low": 37, "expected": 37,
                                                                        "high": 37, "guessed": 1}


def test_the_plan_of_a_run_out_of_budget_says_what_the_live_calls_need_and_the_budget_that_covers_them(store):
    over = launch("sequence", store, args={"calls": 6, "budget": 25}, runner=MockAgentRunner(tokens=10))
    plan = plan_resume(over.run_id, store=store, registry=registry(), budget=40)
    assert (plan.forecast.calls, plan.forecast.expected, plan.forecast.low, plan.forecast.high) == (3, 30, 30, 30)
    assert plan.shortfall == ("the budget leaves 10 tokens but the live calls should cost 30 (30–30): a resume "
                              "would likely stop on its budget; --budget 60 would cover them")
    text = resume_plan_text(plan)
    assert "FORECAST   3 live calls should cost about 30 tokens (30–30), from this run's own answers" in text
    assert "SHORT      the budget leaves 10 tokens" in text
    enough = plan_resume(over.run_id, store=store, registry=registry(), budget=60)
    assert enough.shortfall is None and "the budget covers it" in resume_plan_text(enough)
    assert launch("sequence", store, resume=over.run_id, budget=60, runner=MockAgentRunner(tokens=10)).status == \
        "completed"


def test_a_resume_that_cannot_finish_on_its_budget_says_so_before_it_spends(store):
    over = launch("sequence", store, args={"calls": 6, "budget": 25}, runner=MockAgentRunner(tokens=10))
    runner = MockAgentRunner(tokens=10)
    with pytest.warns(RuntimeWarning, match=r"has 10 tokens of its budget left, but its 3 live calls should cost "
                                            r"about 30 \(30–30\): it will likely stop on its budget; --budget 60"):
        again = launch("sequence", store, resume=over.run_id, budget=40, runner=runner)
    assert again.status == "failed" and "token budget" in again.error


def test_the_plan_of_an_s16_run_out_of_budget_forecasts_from_its_snapshots_mean(tmp_path):
    """An s16 journal records no tokens per line: its calls are estimated at the snapshot's tokens over its calls."""
    root = tmp_path / ".runtime"
    root.mkdir()
    run_id = "wf_wf_0123456789abcdef"
    prompts = [f"step {n}" for n in range(5)]
    (root / f"{run_id}.json").write_text(json.dumps({
        "runId": run_id, "workflowName": "wf", "args": {"budget": 100},
        "task": {"taskId": f"local_workflow_{run_id}", "taskType": "local_workflow", "runId": run_id,
                 "workflowName": "wf", "status": "failed", "usage": {"agents": 3, "tokens": 105}, "progress": []}}))
    (root / f"{run_id}.journal.jsonl").write_text("".join(
        json.dumps({"key": s16_key(prompt[:24] + "...", prompt), "value": "old"}) + "\n" for prompt in prompts[:3]))

    async def steps(ctx, args):
        return [await ctx.agent(prompt) for prompt in prompts]

    plan = plan_resume(run_id, store=RunStore(root), registry=one_workflow(steps))
    assert plan.totals.live == 2 and (plan.forecast.expected, plan.forecast.guessed) == (70, 2)
    assert plan.refused and "--budget 175 would cover them" in plan.shortfall


def test_a_call_the_runner_refused_cost_nothing_and_is_no_sample_of_what_its_answer_will_cost(store):
    async def tolerant(ctx, args):
        answers = []
        for label in ("a", "b", "c"):
            try:
                answers.append(await ctx.agent(f"ask {label}", label=label))
            except RuntimeError:
                answers.append(None)
        return answers

    workflows = one_workflow(tolerant)
    first = launch("wf", store, workflows, args={"budget": 15}, runner=FailingRunner({"b"}, tokens=10))
    assert first.status == "failed" and "token budget" in first.error
    plan = plan_resume(first.run_id, store=store, registry=workflows, budget=40)
    assert plan.calls[plan.calls["action"] == "live"]["label"].tolist() == ["b"]
    # `b` cost nothing when the runner refused it: it is estimated from the answers of its phase, 10 each, not 0
    assert (plan.forecast.low, plan.forecast.expected, plan.forecast.high) == (10, 10, 10)

"""The runtime and the plan agree on every call: what a plan marks cached is served from the journal by the real
resume, and what it marks live (not downstream of a live call, whose prompt may change) is run by it."""

from __future__ import annotations

import asyncio

import pytest
from runtime_support import FailingRunner, launch

from alp_nb.replay import ResumePlan, plan_resume
from alp_nb.runtime import WorkflowRegistry, run_workflow

CHANGES = {"changes": "rename parse() to load()"}


def assert_agree(plan: ResumePlan, real: list) -> None:
    """Every cached call of the plan was cached in the real resume, every live call not downstream was live, and
    the real resume made no other call that the plan could have known of."""
    outcome = {call.key: call.outcome for call in real}
    calls = plan.calls
    certain = calls[(calls["action"] == "cached") | ~calls["after_live"]]
    assert {key: outcome.get(key) for key in certain["key"]} == dict(zip(certain["key"], certain["action"],
                                                                         strict=True))
    assert sorted((call.label, call.outcome) for call in real if not call.after_live) == sorted(
        zip(calls.loc[~calls["after_live"], "label"], calls.loc[~calls["after_live"], "action"], strict=True))
    assert plan.totals.cached == sum(call.outcome == "cached" for call in real)


@pytest.mark.parametrize("fail", [{"verify:correctness:title-64"}, {"audit:performance"}, {"audit:correctness"}],
                         ids=["a verify", "an audit in the middle", "the first audit"])
def test_the_runtime_and_the_plan_agree_on_every_call_after_a_failure(store, fail):
    first = asyncio.run(run_workflow("review-changes", CHANGES, store=store, runner=FailingRunner(fail)))
    assert first.status == "failed"
    plan = plan_resume(first.run_id, store=store)
    real = []
    resumed = asyncio.run(run_workflow("review-changes", None, first.run_id, store=store, on_call=real.append))
    assert resumed.status == "completed"
    assert_agree(plan, real)
    assert sum(call.tokens for call in real if call.outcome == "cached") == plan.totals.tokens_saved


def test_the_runtime_and_the_plan_agree_on_every_call_of_a_script_edited_between_the_run_and_the_resume(store):
    async def original(ctx, args):
        ctx.phase("Stage")

        async def first(_previous, item, index):
            return await ctx.agent(f"first {item}", label=f"first-{item}")

        async def second(previous, item, index):
            return await ctx.agent(f"second {item} after {previous}", label=f"second-{item}")

        return await ctx.pipeline(["a", "b", "c"], first, second)

    async def edited(ctx, args):
        ctx.phase("Stage")

        async def first(_previous, item, index):
            prompt = f"first {item}" if item != "b" else "first b, asked more carefully"
            return await ctx.agent(prompt, label=f"first-{item}")

        async def second(previous, item, index):
            return await ctx.agent(f"second {item} after {previous}", label=f"second-{item}")

        done = await ctx.pipeline(["a", "b", "c", "d"], first, second)
        return [*done, await ctx.agent(f"summary of {done}", label="summary")]

    before, after = WorkflowRegistry(), WorkflowRegistry()
    before.register({"name": "wf", "description": "test", "phases": ["Stage"]}, original)
    after.register({"name": "wf", "description": "test", "phases": ["Stage"]}, edited)
    run = launch("wf", store, before, runner=FailingRunner({"second-c"}))
    assert run.status == "failed"
    plan = plan_resume(run.run_id, store=store, registry=after)
    reasons = {label: reason for label, reason in zip(plan.calls["label"], plan.calls["reason"], strict=True)
               if reason is not None}
    assert reasons == {"first-b": "changed prompt", "second-c": "failed before", "first-d": "never journaled",
                       "second-d": "downstream of a live call", "summary": "downstream of a live call"}
    real = []
    launch("wf", store, after, resume=run.run_id, on_call=real.append)
    assert_agree(plan, real)

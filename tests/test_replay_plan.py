"""``plan_resume``: what a resume would do, call by call, worked out without running it. Each live call gets one
reason (downstream of a live call, a changed prompt or schema, failed before, never journaled); nothing is
written and no model is asked."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from runtime_support import (
    KILLED_AFTER,
    OK_SCHEMA,
    FailingRunner,
    SiblingFailure,
    asks_new_questions,
    asks_old_questions,
    interrupted_review,
    journal_records,
    launch,
    one_workflow,
    registry,
)
from s16_support import CRASHED_CALLS, write_s16_run

import alp_nb
from alp_nb.replay import ReplayError, ResumePlan, plan_resume
from alp_nb.replay.plan import PLAN_COLUMNS, UNUSED_COLUMNS
from alp_nb.runtime import (
    Fork,
    RunnerOutput,
    WorkflowInputError,
    WorkflowRegistry,
    attempt as attempt_module,
    run_workflow,
)
from alp_nb.runtime.dry_runs import StandInRunner
from alp_nb.viz.views.plans import resume_plan_text

CHANGES = {"changes": "rename parse() to load()"}
"""review-changes with the mock runner and these changes makes 4 audits and 6 verifications."""
VERIFY_LABELS = {"correctness": ("verify:correctness:title-64", "verify:correctness:title-3054"),
                 "security": ("verify:security:title-8608",),
                 "performance": ("verify:performance:title-5030", "verify:performance:title-3364"),
                 "maintainability": ("verify:maintainability:title-5091",)}
AUDITS = tuple(f"audit:{dimension}" for dimension in VERIFY_LABELS)


def review(store, fail):
    run = asyncio.run(run_workflow("review-changes", CHANGES, store=store, runner=FailingRunner(fail)))
    assert run.status == "failed"
    return run


def rows(plan: ResumePlan) -> dict[str, tuple]:
    """label → (action, reason, detail) of every call of the plan (labels are unique in these scripts)."""
    calls = plan.calls
    return {label: (action, reason, detail) for label, action, reason, detail in
            zip(calls["label"], calls["action"], calls["reason"], calls["detail"], strict=True)}


def live(plan: ResumePlan) -> dict[str, str]:
    return {label: reason for label, (action, reason, _) in rows(plan).items() if action == "live"}


def test_plan_resume_after_a_failure_in_the_middle_of_a_pipeline_names_exactly_the_calls_that_will_rerun(store):
    first = review(store, {"verify:correctness:title-64"})  # the first finding of the first dimension
    plan = plan_resume(first.run_id, store=store)
    assert isinstance(plan, ResumePlan) and tuple(plan.calls.columns) == PLAN_COLUMNS
    assert live(plan) == {"verify:correctness:title-64": "failed before",
                          "verify:correctness:title-3054": "never journaled"}  # its sibling, never started
    assert rows(plan)["verify:correctness:title-64"][2] == "RuntimeError: runner broke on verify:correctness:title-64"
    cached = {label for label, (action, _, _) in rows(plan).items() if action == "cached"}
    assert cached == {*AUDITS, "verify:security:title-8608", "verify:performance:title-5030",
                      "verify:performance:title-3364", "verify:maintainability:title-5091"}
    journal = {entry["label"]: entry["tokens"] for entry in journal_records(store, first.run_id, kinds=("agent",))}
    assert plan.totals.calls == 10 and plan.totals.cached == 8 and plan.totals.live == 2
    assert plan.totals.tokens_saved == sum(journal.values()) == int(plan.calls["tokens_saved"].sum())
    assert plan.calls["order"].tolist() == list(range(1, 11))
    assert not plan.differs and plan.warning is None and not plan.refused and plan.dry_run_status == "completed"
    assert plan.match.matched == plan.match.journaled == 8 and plan.unused.empty
    assert tuple(plan.unused.columns) == UNUSED_COLUMNS


def test_a_call_after_a_live_one_is_downstream_of_a_live_call(store):
    first = review(store, {"audit:performance"})
    plan = plan_resume(first.run_id, store=store)
    reasons = live(plan)
    assert reasons["audit:performance"] == "failed before"
    assert {label: reasons[label] for label in VERIFY_LABELS["performance"]} == {
        label: "downstream of a live call" for label in VERIFY_LABELS["performance"]}
    assert all(plan.calls.loc[plan.calls["reason"] == "downstream of a live call", "after_live"])


def test_a_changed_prompt_and_a_changed_schema_are_told_apart_and_named(store):
    verdict = {"type": "object", "properties": {"isReal": {"type": "boolean"}}, "required": ["isReal"]}

    async def original(ctx, args):
        return await ctx.parallel([
            lambda: ctx.agent("Summarise the change.\nKeep it short.", label="summary"),
            lambda: ctx.agent("Rate it", schema=verdict, label="rating"),
            lambda: ctx.agent("Judge it", schema=verdict, label="judgement"),
            lambda: ctx.agent("Same as ever", label="steady"),
        ])

    async def edited(ctx, args):
        wider = {**verdict, "properties": {**verdict["properties"], "reason": {"type": "string"}}}
        return await ctx.parallel([
            lambda: ctx.agent("Summarise the change.\nKeep it very short.", label="summary"),
            lambda: ctx.agent("Rate it", schema=wider, label="rating"),
            lambda: ctx.agent("Judge it fairly", schema=wider, label="judgement"),
            lambda: ctx.agent("Same as ever", label="steady"),
        ])

    run = launch("wf", store, one_workflow(original))
    plan = plan_resume(run.run_id, store=store, registry=one_workflow(edited))
    seqs = {entry["label"]: entry["seq"] for entry in journal_records(store, run.run_id, kinds=("agent",))}
    assert rows(plan) == {
        "summary": ("live", "changed prompt", 'prompt line 2: "Keep it short." → "Keep it very short." '
                                              f"(journal line {seqs['summary']})"),
        "rating": ("live", "changed schema", f"schema.properties.reason added (journal line {seqs['rating']})"),
        "judgement": ("live", "changed prompt and schema", 'prompt line 1: "Judge it" → "Judge it fairly"; '
                      f"schema.properties.reason added (journal line {seqs['judgement']})"),
        "steady": ("cached", None, None),
    }
    assert plan.unused["label"].tolist() == sorted(["summary", "rating", "judgement"], key=seqs.get)
    assert plan.unused["seq"].tolist() == sorted(seqs[label] for label in ("summary", "rating", "judgement"))


def test_a_long_prompt_line_is_shown_around_where_it_starts_to_differ(store):
    async def original(ctx, args):
        return await ctx.agent("x" * 100 + " old ending", label="long")

    async def edited(ctx, args):
        return await ctx.agent("x" * 100 + " new ending", label="long")

    run = launch("wf", store, one_workflow(original))
    (_, reason, detail), = rows(plan_resume(run.run_id, store=store, registry=one_workflow(edited))).values()
    assert reason == "changed prompt"
    window = "x" * 29  # 40 characters each side, ending where the line ends
    assert detail == f'prompt line 1: "…{window} old ending" → "…{window} new ending" (journal line 2)'


def test_a_call_that_failed_is_failed_before_by_its_refused_answer_in_the_journal_with_the_schemas_issues(store):
    class Unfit:
        def run(self, prompt, schema, label):
            return RunnerOutput({"ok": "not a boolean"}, 7)

    workflows = one_workflow(_checked)
    run = launch("wf", store, workflows, runner=Unfit())
    assert run.status == "failed" and "does not match its schema" in run.error
    store.paths(run.run_id).events.unlink()  # the journal's spend lines tell it, events or not
    told = rows(plan_resume(run.run_id, store=store, registry=workflows))["check"]
    assert told == ("live", "failed before", "its answer broke its schema even after a retry: ok: 'not a boolean' "
                                             "is not of t…")  # clipped at 80 characters


async def _checked(ctx, args):
    return await ctx.agent("check it", schema=OK_SCHEMA, label="check")


def test_a_call_cancelled_when_a_sibling_failed_is_never_journaled_and_says_so(store):
    async def script(ctx, args):
        return await ctx.parallel([lambda: ctx.agent("fine", label="fine"), lambda: ctx.agent("b", label="broken"),
                                   lambda: ctx.agent("s", label="slow")])

    workflows = one_workflow(script)
    run = launch("wf", store, workflows, runner=SiblingFailure())
    assert run.status == "failed"
    assert rows(plan_resume(run.run_id, store=store, registry=workflows)) == {
        "fine": ("cached", None, None),
        "broken": ("live", "failed before", "RuntimeError: runner broke: <script>alert(1)</script>"),
        "slow": ("live", "never journaled", "cancelled when a sibling failed"),
    }


def test_a_script_that_matches_none_of_the_journaled_calls_is_flagged_and_a_real_resume_is_warned_about(store):
    run = launch("wf", store, one_workflow(asks_old_questions))
    plan = plan_resume(run.run_id, store=store, registry=one_workflow(asks_new_questions))
    assert plan.differs and (plan.match.matched, plan.match.journaled) == (0, 4)
    assert plan.warning == ("the script differs from the one that wrote the journal: it asks for 0 of 4 journaled "
                            "calls; a resume would run them all again")
    assert live(plan) == {"q0": "changed prompt", "q1": "downstream of a live call",
                          "q2": "downstream of a live call", "q3": "downstream of a live call"}
    assert plan.unused["label"].tolist() == ["q0", "q1", "q2", "q3"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        launch("wf", store, one_workflow(asks_new_questions), resume=run.run_id)
    assert any("asks for 0 of the 4 calls" in str(warning.message) for warning in caught
               if warning.category is RuntimeWarning)


def test_a_script_that_asks_for_fewer_than_half_of_the_journaled_calls_is_flagged_with_what_it_reruns(store):
    async def original(ctx, args):
        return await ctx.parallel([lambda i=i: ctx.agent(f"part {i}", label=f"p{i}") for i in range(5)])

    async def smaller(ctx, args):
        return await ctx.parallel([lambda i=i: ctx.agent(f"piece {i}", label=f"n{i}") for i in range(3)]
                                  + [lambda: ctx.agent("part 0", label="p0")])

    run = launch("wf", store, one_workflow(original))
    plan = plan_resume(run.run_id, store=store, registry=one_workflow(smaller))
    assert plan.warning == ("the script differs from the one that wrote the journal: it asks for 1 of 5 journaled "
                            "calls; a resume would run 3 of its 4 calls again")
    assert set(live(plan).values()) == {"never journaled"} and plan.totals.cached == 1


def test_a_plan_of_a_run_over_its_budget_lists_its_calls_and_says_the_resume_is_refused_until_it_is_raised(store):
    run = launch("sequence", store, args={"calls": 4, "budget": 20})
    assert run.task.error_code == "BUDGET_EXCEEDED"
    spent = run.task.usage.cumulative.tokens
    assert spent > 20
    plan = plan_resume(run.run_id, store=store, registry=registry())
    assert plan.refused and (plan.budget, plan.spent) == (20, spent)
    assert "`--budget N`" in plan.refusal and f"above {spent}" in plan.refusal
    assert [(label, action) for label, (action, *_) in rows(plan).items()] == [
        ("step-0", "cached"), ("step-1", "cached"), ("step-2", "cached"), ("step-3", "live")]
    assert plan.dry_run_status == "completed"
    with pytest.raises(WorkflowInputError) as refused:  # what the real resume says
        launch("sequence", store, resume=run.run_id)
    assert refused.value.code == "BUDGET_EXCEEDED"

    raised = plan_resume(run.run_id, store=store, registry=registry(), budget=spent + 10)
    assert not raised.refused and raised.refusal is None and raised.budget_raised
    assert (raised.budget, raised.totals.cached, raised.totals.live) == (spent + 10, 3, 1)
    still_short = plan_resume(run.run_id, store=store, registry=registry(), budget=spent - 1)
    assert still_short.refused and still_short.budget == spent - 1
    with pytest.raises(WorkflowInputError) as lowered:
        plan_resume(run.run_id, store=store, registry=registry(), budget=10)
    assert lowered.value.code == "INVALID_OPTION"


def test_a_plan_writes_nothing_and_calls_no_model(store, monkeypatch):
    first = review(store, {"audit:security"})
    files = {path.name: path.read_bytes() for path in store.root.iterdir()}

    class NoModel:
        def run(self, prompt, schema, label):
            raise AssertionError(f"a plan asked a model for {label}")

    real_invoker = attempt_module.invoker

    def stand_ins_only(runner):
        assert isinstance(runner, StandInRunner), f"a plan was given the runner {runner!r}"
        return real_invoker(runner)

    monkeypatch.setattr(attempt_module, "invoker", stand_ins_only)
    monkeypatch.setattr("alp_nb.runtime.run.MockAgentRunner", NoModel)
    monkeypatch.setattr("alp_nb.runtime.anthropic_runner.AnthropicAgentRunner.run", NoModel.run)
    plan = plan_resume(first.run_id, store=store)
    assert plan.totals.live > 0
    assert {path.name: path.read_bytes() for path in store.root.iterdir()} == files


def test_the_last_run_is_planned_by_default_and_refusals_are_those_of_a_resume(tmp_path, store):
    first = review(store, {"audit:security"})
    assert plan_resume(store=store).run_id == first.run_id
    assert plan_resume(store=str(store.root)).run_id == first.run_id
    with pytest.raises(ReplayError) as missing:
        plan_resume(store=tmp_path / "nowhere")
    assert missing.value.code == "STORE_NOT_FOUND"
    with pytest.raises(WorkflowInputError) as unknown:
        plan_resume(first.run_id, store=store, registry=WorkflowRegistry())
    assert unknown.value.code == "UNKNOWN_WORKFLOW"
    with pytest.raises(WorkflowInputError) as no_run:
        plan_resume("wf_review-changes_0123456789abcdef", store=store)
    assert no_run.value.code == "RUN_NOT_FOUND"
    with pytest.raises(WorkflowInputError) as no_budget:
        plan_resume(first.run_id, store=store, budget=100)
    assert no_budget.value.code == "INVALID_OPTION"
    (tmp_path / "empty").mkdir()
    with pytest.raises(WorkflowInputError) as no_last:
        plan_resume(store=tmp_path / "empty")
    assert no_last.value.code == "RUN_NOT_FOUND"


def test_a_script_that_breaks_during_the_plan_is_shown_not_raised(store):
    async def original(ctx, args):
        return await ctx.agent("count", label="count")

    async def picky(ctx, args):
        answer = await ctx.agent("count again", label="count")
        if not answer.isdigit():
            raise ValueError(f"not a number: {answer}")
        return answer

    run = launch("wf", store, one_workflow(original))
    plan = plan_resume(run.run_id, store=store, registry=one_workflow(picky))
    assert plan.dry_run_status == "failed" and plan.dry_run_error.startswith("ValueError: not a number")
    assert live(plan) == {"count": "changed prompt"}


def test_a_plan_of_an_s16_run_cannot_tell_a_changed_prompt_and_says_never_journaled(tmp_path):
    store, run_id = write_s16_run(tmp_path / ".runtime", "review", status="failed", calls=CRASHED_CALLS)
    asked = [(label, prompt) for label, _phase, prompt in CRASHED_CALLS]
    asked[0] = ("audit:1", "audit file 1 again")  # a changed prompt: s16 lines hold no label to tell it by
    asked.append(("verify:7", "verify finding 7"))  # a new call

    async def script(ctx, args):
        return await ctx.parallel([lambda label=label, prompt=prompt: ctx.agent(prompt, label=label)
                                   for label, prompt in asked])

    plan = plan_resume(run_id, store=store, registry=one_workflow(script, "review"))
    assert not plan.labels_known
    assert live(plan) == {"audit:1": "never journaled", "verify:7": "never journaled"}
    assert "s16 journal lines keep no label" in rows(plan)["audit:1"][2]
    assert plan.totals.cached == len(CRASHED_CALLS) - 1
    assert plan.unused["seq"].tolist() == [1] and plan.unused["label"].tolist() == [None]


def test_a_plan_is_public_and_pandas_loads_only_when_one_is_made():
    assert alp_nb.plan_resume is plan_resume and alp_nb.ResumePlan is ResumePlan
    assert "plan_resume" in alp_nb.__all__ and "ResumePlan" in alp_nb.replay.__all__


def test_the_tokens_of_a_journal_line_are_saved_once_however_often_the_script_asks_for_it(store):
    run = launch("twice", store, args={"times": 3})
    plan = plan_resume(run.run_id, store=store, registry=registry())
    (tokens,) = {entry["tokens"] for entry in journal_records(store, run.run_id, kinds=("agent",))}
    assert plan.calls["tokens_saved"].tolist() == [tokens, 0, 0] and plan.totals.tokens_saved == tokens
    assert plan.calls["detail"].tolist()[1:] == ["the same call again: served from the same journal line"] * 2


def test_a_forks_replaced_answer_is_cached_and_named_and_saves_nothing(store):
    source = launch("staged", store, args={"items": ["a", "b"]})
    fork = launch("staged", store, fork=Fork(source.run_id, values={"first-a": "another answer"}))
    plan = plan_resume(fork.run_id, store=store, registry=registry())
    assert rows(plan)["first-a"] == ("cached", None, "the answer this fork was given instead")
    assert plan.totals.live == 0 and plan.calls["tokens_saved"].tolist()[0] == 0


def test_a_plan_of_an_interrupted_run_serves_what_it_journaled_and_says_it_was_interrupted(tmp_path):
    """Nobody holds the lock of a run whose process died: the plan probes it (never takes it) and says so."""
    store = interrupted_review(tmp_path / "runs")
    lock = store.paths(store.last_run()).lock.read_bytes()
    plan = plan_resume(store=store)
    assert plan.run_status == "interrupted" and (plan.totals.cached, plan.totals.live) == (KILLED_AFTER,
                                                                                          10 - KILLED_AFTER)
    assert "· run interrupted" in resume_plan_text(plan)
    assert store.paths(plan.run_id).lock.read_bytes() == lock and store.snapshot(plan.run_id).status == "interrupted"

"""Watching a script's calls (``on_call``), the dry run, and the warning before a resume by another script."""

from __future__ import annotations

import asyncio
import warnings

from runtime_support import FailingRunner, asks_new_questions, asks_old_questions, launch, one_workflow, registry

from alp_nb.runtime import DEFAULT_REGISTRY, MockAgentRunner, read_journal, run_workflow
from alp_nb.runtime.dry_runs import StandInRunner, dry_run, journal_match


def watched(name, store, workflows=None, **options):
    """Run (or resume) ``name`` and return the run and every ObservedCall it reported, in order."""
    calls = []
    run = launch(name, store, workflows, on_call=calls.append, **options)
    return run, calls



def test_every_call_is_reported_once_live_on_a_fresh_run_and_cached_on_a_resume_with_its_journal_line(store):
    run, fresh = watched("sequence", store, args={"calls": 3})
    assert [(call.label, call.outcome, call.seq) for call in fresh] == [
        ("step-0", "live", 2), ("step-1", "live", 4), ("step-2", "live", 6)]  # each after its ask line
    assert all(call.tokens == 8 + len(call.prompt) // 4 and call.value == f"mock answer to {call.label}"
               for call in fresh)
    _, resumed = watched("sequence", store, resume=run.run_id)
    assert [(call.label, call.outcome, call.seq, call.tokens) for call in resumed] == [
        (call.label, "cached", call.seq, call.tokens) for call in fresh]


def test_a_failed_call_is_reported_failed_with_its_error(store):
    run, calls = watched("sequence", store, args={"calls": 3}, runner=FailingRunner({"step-1"}))
    assert run.status == "failed"
    assert [(call.label, call.outcome) for call in calls] == [("step-0", "live"), ("step-1", "failed")]
    assert calls[-1].error == "RuntimeError: runner broke on step-1" and calls[-1].value is None


def test_a_call_made_after_a_live_call_in_its_own_line_of_the_script_is_after_live(store):
    async def script(ctx, args):
        first = await ctx.agent("first", label="first")
        return await ctx.agent(f"second after {first}", label="second")

    workflows = one_workflow(script)
    run, fresh = watched("wf", store, workflows)
    assert [(call.label, call.after_live) for call in fresh] == [("first", False), ("second", True)]
    _, resumed = watched("wf", store, workflows, resume=run.run_id)
    assert [(call.outcome, call.after_live) for call in resumed] == [("cached", False), ("cached", False)]


def test_branches_side_by_side_do_not_taint_each_other_but_the_barrier_joins_them(store):
    async def script(ctx, args):
        left, right = await ctx.parallel([lambda: ctx.agent("left", label="left"),
                                          lambda: ctx.agent("right", label="right")])
        return await ctx.agent(f"{left} {right}", label="after")

    workflows = one_workflow(script)
    _, calls = watched("wf", store, workflows)
    assert {call.label: call.after_live for call in calls} == {"left": False, "right": False, "after": True}


def test_a_pipeline_stage_follows_only_its_own_items_live_calls(store):
    source = launch("staged", store, args={"items": ["a", "b"]}, runner=MockAgentRunner({"first-a": "a real answer"}))
    journal = read_journal(store.paths(source.run_id).journal, keep_entries=True)
    lost = next(entry.key for entry in journal.entries if entry.label == "first-a")
    del journal.calls[lost]  # as if first-a had failed: it goes live, with a stand-in answer
    rehearsal = asyncio.run(dry_run(registry().get("staged"), {"items": ["a", "b"]}, journal))
    outcomes = {call.label: (call.outcome, call.after_live) for call in rehearsal.calls}
    assert outcomes == {"first-a": ("live", False), "second-a": ("live", True),  # asked with the stand-in answer
                        "first-b": ("cached", False), "second-b": ("cached", False)}


def test_a_dry_run_serves_the_journal_answers_the_rest_with_stand_ins_and_writes_nothing(store):
    run = launch("sequence", store, args={"calls": 2})
    paths = store.paths(run.run_id)
    before = {path: path.read_bytes() for path in (paths.snapshot, paths.journal, paths.events, paths.output)}
    journal = read_journal(paths.journal)
    runner = StandInRunner()
    rehearsal = asyncio.run(dry_run(registry().get("sequence"), {"calls": 4}, journal, runner=runner))
    assert rehearsal.status == "completed" and len(rehearsal.result) == 4
    assert [(call.label, call.outcome, call.tokens == 0) for call in rehearsal.calls] == [
        ("step-0", "cached", False), ("step-1", "cached", False), ("step-2", "live", True), ("step-3", "live", True)]
    assert runner.calls == ["step-2", "step-3"] and len(journal.calls) == 2  # the journal read is left as it was
    assert {path: path.read_bytes() for path in before} == before
    assert journal_match(journal, rehearsal.calls).matched == 2


def test_a_dry_run_of_a_resume_predicts_the_outcome_of_every_call_the_real_resume_makes(store):
    first = asyncio.run(run_workflow("review-changes", {"changes": "rename parse() to load()"}, store=store,
                                     runner=FailingRunner({"audit:performance"})))
    assert first.status == "failed"
    journal = read_journal(store.paths(first.run_id).journal)
    predicted = asyncio.run(dry_run(DEFAULT_REGISTRY.get("review-changes"), dict(first.task.args), journal))
    real = []
    resumed = asyncio.run(run_workflow("review-changes", None, first.run_id, store=store, on_call=real.append))
    assert resumed.status == "completed"
    assert sorted((call.label, call.outcome) for call in predicted.calls if not call.after_live) == sorted(
        (call.label, call.outcome) for call in real if not call.after_live)
    assert {call.label for call in real if call.outcome == "cached"} == {
        call.label for call in predicted.calls if call.outcome == "cached"}


def test_a_resume_by_a_script_that_asks_for_none_of_the_journaled_calls_is_warned_about_before_it_runs(store):
    run = launch("wf", store, one_workflow(asks_old_questions))
    warned_before_first_call = []

    class Watching(MockAgentRunner):
        def run(self, prompt, schema=None, label=""):
            warned_before_first_call.append(bool(caught))
            return super().run(prompt, schema, label)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        launch("wf", store, one_workflow(asks_new_questions), resume=run.run_id, runner=Watching())
    messages = [str(warning.message) for warning in caught if warning.category is RuntimeWarning]
    assert messages == [f"the `wf` script asks for 0 of the 4 calls run `{run.run_id}` journaled: it is not the "
                        "script that wrote them, so this resume will run the others again (see its plan: alp-nb "
                        "workflow plan)"]
    assert warned_before_first_call == [True] * 4


def test_a_resume_by_the_same_script_is_not_rehearsed(store):
    run = launch("sequence", store, args={"calls": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert launch("sequence", store, resume=run.run_id).status == "completed"

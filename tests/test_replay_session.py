"""ReplaySession: a run's script stepped call by call against its journal, never calling a model unless asked,
never writing to the run; an edited script's divergences reported with what changed and where."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from runtime_support import FailingRunner, review

from alp_nb.base.frozen import thaw
from alp_nb.replay import ReplayError, ReplaySession, load_run
from alp_nb.runtime import MockAgentRunner, WorkflowInputError, WorkflowRegistry, read_journal, run_workflow
from alp_nb.runtime.sample import FINDINGS_SCHEMA, SAMPLE_META, VERDICT_SCHEMA
from alp_nb.viz.rendering import render


class NoModel:
    """A runner that fails the test if a replay ever asks it anything."""

    blocking = False

    def run(self, prompt, schema=None, label=""):
        raise AssertionError(f"a replay called a model for {label}")


async def edited_review(ctx, args):
    """review-changes with the security audit asked in other words: every other call is the sample's."""
    changes = args["changes"]

    async def audit(_previous, dimension, _index):
        topic = "SECURITY holes" if dimension == "security" else f"{dimension} issues"
        out = await ctx.agent(f"Inspect this change for {topic}:\n{changes}", schema=FINDINGS_SCHEMA,
                              label=f"audit:{dimension}", phase="Review")
        return {"dimension": dimension, "findings": out["findings"]}

    async def verify(audited, dimension, _index):
        ctx.phase("Verify")
        verdicts = await ctx.parallel([
            (lambda finding=finding: ctx.agent(f"Verify this finding against the change:\n{changes}\n\n{finding}",
                                               schema=VERDICT_SCHEMA, label=f"verify:{dimension}:{finding['title']}"))
            for finding in audited["findings"]])
        return {"dimension": dimension, "confirmed": [f for f, v in zip(audited["findings"], verdicts, strict=True)
                                                      if v["isReal"]]}

    ctx.phase("Review")
    results = await ctx.pipeline(("correctness", "security", "performance", "maintainability"), audit, verify)
    return {"confirmed": [finding for result in results for finding in result["confirmed"]]}


def edited_registry():
    workflows = WorkflowRegistry()
    workflows.register(SAMPLE_META, edited_review)
    return workflows


def test_stepping_review_changes_serves_every_call_from_the_journal_with_its_journaled_answer(store):
    run = review(store)
    paths = store.paths(run.run_id)
    before = {path: path.read_bytes() for path in (paths.snapshot, paths.journal, paths.events, paths.output)}
    journal = read_journal(paths.journal, keep_entries=True)
    by_seq = {entry.seq: entry for entry in journal.entries}
    session = ReplaySession(run, runner=NoModel())
    steps = []
    while (call := session.step()) is not None:
        entry = by_seq[call.seq]
        assert (call.status, call.label, call.key, call.value) == ("cached", entry.label, entry.key, thaw(entry.value))
        assert call.index == len(steps) + 1 == session.cursor
        steps.append(call)
    assert sorted(call.seq for call in steps) == sorted(by_seq)
    assert session.finished and session.status == "completed" and session.result == run.result
    assert session.divergences == () and session.step() is None
    assert {path: path.read_bytes() for path in before} == before


def test_run_to_a_label_or_a_number_moves_the_cursor_there_and_a_call_never_made_is_refused(store):
    run = review(store)
    session = ReplaySession(load_run(run.run_id, store=store))
    call = session.run_to("audit:performance")
    assert call.label == "audit:performance" and session.cursor == call.index
    assert session.run_to(1).label == "audit:correctness" and session.cursor == call.index  # already made: no step
    with pytest.raises(ReplayError) as refused:
        session.run_to("audit:style")
    assert refused.value.code == "CALL_NOT_REACHED" and session.finished
    assert "finished after 10 calls without making a call labelled `audit:style`" in refused.value.message
    with pytest.raises(ReplayError, match="a call label or a call number"):
        session.run_to(0)


def test_a_deliberately_edited_script_produces_the_expected_divergence_report(store):
    run = review(store)
    session = ReplaySession(run, registry=edited_registry())
    changed = session.run_to("audit:security")
    assert changed.status == "divergent" and changed.changed == "prompt"
    assert "-Inspect this change for security issues:" in changed.diff
    assert "+Inspect this change for SECURITY holes:" in changed.diff
    source, first = inspect.getsourcelines(edited_review)
    line = first + next(number for number, text in enumerate(source) if "out = await ctx.agent(" in text)
    assert changed.where == f"{__file__}:{line}"
    session.run_to_end()
    report = session.divergences
    assert [(item.kind, item.label) for item in report if item.kind == "changed"] == [("changed", "audit:security")]
    not_asked = {item.label for item in report if item.kind == "not asked"}
    journaled = {entry.label for entry in read_journal(store.paths(run.run_id).journal, keep_entries=True).entries}
    assert not_asked == {"audit:security"} | {label for label in journaled if label.startswith("verify:security:")}
    assert all(call.status == "missing" and call.after_live for call in session.calls
               if call.label.startswith("verify:security:"))
    text = render(session, "text")
    assert "changed: #2 `audit:security` asks another prompt" in text and "not asked: `audit:security`" in text


def test_a_replay_answers_what_the_journal_lacks_with_stand_ins_unless_given_a_runner(store):
    run = review(store, runner=FailingRunner({"audit:security"}))
    assert run.status == "failed"
    stand_ins = ReplaySession(run)
    stand_ins.run_to_end()
    assert stand_ins.status == "completed"
    assert [call.status for call in stand_ins.calls][:2] == ["cached", "missing"]
    asked = MockAgentRunner()
    with_runner = ReplaySession(run, runner=asked)
    with_runner.run_to_end()
    assert "audit:security" in asked.calls and "audit:correctness" not in asked.calls


def test_close_fails_the_paused_script_at_its_call_and_ends_the_replay(store):
    session = ReplaySession(review(store))
    session.step()
    session.step()
    session.close()
    assert session.finished and session.status == "failed" and "replay was closed" in session.error
    assert session.step() is None


def test_a_replay_steps_from_code_running_inside_an_event_loop_as_a_notebook_cell_does(store):
    run = review(store)

    async def cell():
        session = ReplaySession(run)
        return [session.step().label for _ in range(2)]

    assert asyncio.run(cell()) == ["audit:correctness", "audit:security"]


def test_a_replay_of_a_workflow_not_saved_here_names_how_to_load_it(store):
    run = review(store)
    with pytest.raises(WorkflowInputError, match="load_workflow_file"):
        ReplaySession(run, registry=WorkflowRegistry())


def test_the_views_show_each_call_and_escape_what_the_run_holds(store):
    hostile = "<script>alert(1)</script>\u202e"
    run = asyncio.run(run_workflow("review-changes", {"changes": hostile}, store=store,
                                   runner=MockAgentRunner({"audit:correctness": {"findings": [
                                       {"title": hostile, "severity": "high"}]}})))
    session = ReplaySession(run, registry=edited_registry())
    session.run_to_end()
    for fmt in ("html", "text"):
        for shown in (render(session, fmt), render(session.calls[0], fmt), render(session.calls[1], fmt)):
            assert "\u202e" not in shown and (fmt == "text" or "<script>" not in shown)
    assert "divergent" in render(session.calls[1], "html")

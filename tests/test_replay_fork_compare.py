"""fork_run reruns only what its replacements change; compare_runs pairs two runs' calls by label and says what
differs (calls, results, usage), as tables, timelines and ``alp-nb runs diff``."""

from __future__ import annotations

import asyncio

from runtime_support import REVIEW_CHANGES as CHANGES, launch, registry, review

from alp_nb.cli import main
from alp_nb.replay import compare_runs, fork_run, load_run
from alp_nb.runtime import MockAgentRunner, run_workflow
from alp_nb.viz.rendering import render


def test_a_fork_with_one_answer_replaced_reruns_only_the_calls_that_depend_on_it(store):
    source = review(store)
    journal = load_run(source.run_id, store=store).journal
    security = [label for label in journal["label"] if label.startswith("verify:security:")]
    replaced = {"findings": [{"title": "a new finding", "severity": "high"}]}
    asked = MockAgentRunner()
    fork = fork_run(source, {"audit:security": replaced}, runner=asked)
    assert fork.status == "completed" and fork.snapshot.fork.run_id == source.run_id
    assert asked.calls == ["verify:security:a new finding"]  # all that depends on the replaced answer
    comparison = compare_runs(source, fork)
    statuses = dict(zip(comparison.calls["label"], comparison.calls["status"], strict=True))
    assert statuses["audit:security"] == "changed value"
    assert {label: statuses[label] for label in security} == dict.fromkeys(security, "only in a")
    assert statuses["verify:security:a new finding"] == "only in b"
    assert {status for label, status in statuses.items() if "security" not in label} == {"same"}
    assert comparison.usage["agents"] == (source.task.usage.cumulative.agents, 1,
                                          1 - source.task.usage.cumulative.agents)


def test_a_fork_with_a_prompt_replaced_asks_it_and_compares_as_a_changed_prompt(store):
    source = launch("staged", store, args={"items": ["a", "b"]})
    fork = fork_run((store, source.run_id), prompts={"first-a": "first a, asked again"}, registry=registry(),
                    runner=MockAgentRunner({"first-a": "a better answer"}))
    rows = compare_runs(source.run_id, fork, store=store).calls.set_index("label")
    assert rows.loc["first-a", "status"] == "changed value" and rows.loc["first-a", "prompt_changed"]
    assert rows.loc["second-a", "prompt_changed"]  # it was asked again, with first-a's new answer in its prompt
    assert (rows.loc["first-b", "status"], rows.loc["second-b", "status"]) == ("same", "same")


def test_two_runs_of_other_answers_differ_in_result_and_the_diff_names_both(store):
    one = review(store)
    other = asyncio.run(run_workflow("review-changes", CHANGES, store=store, runner=MockAgentRunner(
        {"audit:correctness": {"findings": [{"title": "x", "severity": "high"}]}, "verify:correctness:x": {
            "isReal": True}})))
    comparison = compare_runs(one, other)
    assert comparison.counts["changed value"] == 1 and comparison.counts["only in a"] >= 1
    assert comparison.counts["only in b"] == 1
    assert comparison.result_diff.startswith(f"--- {one.run_id}\n+++ {other.run_id}")
    assert compare_runs(one, one).result_diff == "" and set(compare_runs(one, one).calls["status"]) == {"same"}


def test_the_comparison_shows_as_a_table_with_both_timelines_and_escapes_what_the_runs_hold(store):
    hostile = "<script>alert(1)</script>\u202e"
    one = review(store)
    other = asyncio.run(run_workflow("review-changes", CHANGES, store=store, runner=MockAgentRunner(
        {"audit:correctness": {"findings": [{"title": hostile, "severity": "low"}]}})))
    html = render(compare_runs(one, other), "html")
    assert html.count("<svg") == 2 and "<script>" not in html and "\u202e" not in html
    text = render(compare_runs(one, other), "text")
    assert "changed value" in text and "\u202e" not in text


def test_runs_diff_exits_0_for_the_same_calls_and_results_and_1_when_they_differ(store, capsys):
    one, other = review(store), review(store)
    assert main(["runs", "diff", one.run_id, other.run_id, "--store", str(store.root)]) == 0
    changed = asyncio.run(run_workflow("review-changes", CHANGES, store=store, runner=MockAgentRunner(
        {"audit:performance": {"findings": []}})))
    capsys.readouterr()
    assert main(["runs", "diff", one.run_id, changed.run_id, "--store", str(store.root)]) == 1
    out = capsys.readouterr().out
    assert "[changed value] audit:performance" in out and "RESULT     differs:" in out


def test_a_call_asked_with_another_prompt_and_answered_the_same_is_a_changed_prompt_not_the_same(store):
    source = launch("staged", store, args={"items": ["a"]})
    fork = fork_run((store, source.run_id), prompts={"first-a": "first a, asked another way"}, registry=registry(),
                    runner=MockAgentRunner({"first-a": "mock answer to first-a"}))
    comparison = compare_runs(source.run_id, fork, store=store)
    rows = comparison.calls.set_index("label")
    assert (rows.loc["first-a", "status"], rows.loc["first-a", "prompt_changed"]) == ("changed prompt", True)
    assert comparison.counts["changed prompt"] == 1 and comparison.result_diff == ""
    assert "[changed prompt] first-a: prompt changed" in render(comparison, "text")
    assert "changed prompt</span>" in render(comparison, "html")


def test_a_fork_keeps_to_the_agent_cap_it_is_given_as_a_resume_does(store):
    source = launch("fanout", store, args={"calls": 3})
    capped = fork_run(source.run_id, {"item-0": "x"}, store=store, registry=registry(), agent_cap=2)
    assert capped.status == "failed" and capped.error.startswith("agent cap of 2 distinct calls reached"), capped.error
    uncapped = fork_run(source.run_id, {"item-0": "x"}, store=store, registry=registry(), agent_cap=3)
    assert uncapped.status == "completed" and len(uncapped.journal) == 3

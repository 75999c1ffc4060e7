"""Two versions of a contract: the fields that changed, the reviewers of seed 004 who must sign again (security for
a cap wherever its words are), the lint findings that came or went, and the scenarios that now end differently."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from alp_nb.loops import LoopContract, diff_contracts
from alp_nb.viz.rendering import render

FLAKY = LoopContract.load(Path(__file__).resolve().parents[1] / "examples" / "contracts"
                          / "flaky-test-quarantine-loop.json")
TODAY = date(2026, 12, 1)


def resigners(diff) -> dict[str, tuple[str, ...]]:
    return {entry.reviewer: entry.fields for entry in diff.resign}


def test_an_unchanged_contract_changes_nothing_and_asks_nobody():
    diff = diff_contracts(FLAKY, FLAKY, today=TODAY)
    assert not diff.changed and diff.resign == () and diff.scenarios == ()
    assert diff.findings_added == diff.findings_removed == ()
    assert render(diff, "text") == f"{FLAKY.name}: no field changed"


def test_each_field_is_signed_again_by_the_reviewers_of_its_slice():
    edited = FLAKY.replace(
        exit={"success": "The quarantine PR is merged.", "stop_without_success": FLAKY.exit.stop_without_success},
        trigger={"type": "scheduled", "cadence_or_event": "Nightly at 03:00 UTC."},
        verification={"gates": [*FLAKY.verification.gates[:2]], "receipts": list(FLAKY.verification.receipts)},
        x_alp_nb={**FLAKY.x_alp_nb.model_dump(mode="json", exclude_none=True),
                  "budget": {"max_tokens": 150000, "max_concurrency": 2}})
    diff = diff_contracts(FLAKY, edited, today=TODAY)
    assert [change.path for change in diff.changes] == [
        "trigger.cadence_or_event", "verification.gates", "exit.success", "x_alp_nb.budget.max_tokens"]
    assert resigners(diff) == {"product owner": ("exit.success",),
                               "operator": ("trigger.cadence_or_event", "x_alp_nb.budget.max_tokens"),
                               "verifier owner": ("verification.gates",)}
    tokens = next(change for change in diff.changes if change.path == "x_alp_nb.budget.max_tokens")
    assert (tokens.old, tokens.new) == (200000, 150000)


def test_a_changed_cap_asks_security_to_sign_again_and_shows_what_ends_differently():
    edited = FLAKY.replace(objective=FLAKY.objective.replace("at most 3 quarantine", "at most 4 quarantine"))
    diff = diff_contracts(FLAKY, edited, today=TODAY)
    assert diff.caps_changed == ("pull requests: at most 3 → at most 4 (objective)",)
    assert resigners(diff) == {"product owner": ("objective",), "security": ("objective",)}
    changed = {change.scenario: change for change in diff.scenarios}
    assert (changed["over-cap-pull-requests"].old_refused, changed["over-cap-pull-requests"].new_refused) == (
        ("pull requests #4",), ("pull requests #5",))
    fourth = changed["night-cap-pull-requests/item-4"]
    assert (fourth.old_outcome, fourth.new_outcome) == ("stop-with-receipt", "exit-success")
    assert changed["night-cap-pull-requests/item-5"].old_outcome is None


def test_lint_findings_that_came_or_went_are_named():
    uncapped = FLAKY.replace(workspace={**FLAKY.workspace.model_dump(),
                                        "allowed_actions": [*FLAKY.workspace.allowed_actions, "comment on each PR"]})
    diff = diff_contracts(FLAKY, uncapped, today=TODAY)
    assert [(finding.rule, finding.path) for finding in diff.findings_added] == [
        ("LC115", "workspace.allowed_actions[4]")]
    back = diff_contracts(uncapped, FLAKY, today=TODAY)
    assert [finding.rule for finding in back.findings_removed] == ["LC115"] and back.findings_added == ()
    assert "security" in resigners(diff)


def test_a_new_escalation_condition_is_a_new_scenario_and_a_new_owner_changes_every_hand_over():
    edited = FLAKY.replace(escalation={"conditions": [*FLAKY.escalation.conditions, "the quarantine list is full"],
                                       "destination": "Flaky-test rotation via #flaky-rotation"})
    changes = {change.scenario: change for change in diff_contracts(FLAKY, edited, today=TODAY).scenarios}
    assert changes["escalation-condition-6"].old_outcome is None
    assert changes["escalation-condition-6"].new_owner == "Flaky-test rotation via #flaky-rotation"
    assert changes["timeout"].new_owner == "Flaky-test rotation via #flaky-rotation"


def test_a_draft_with_lint_errors_is_compared_provisionally():
    diff = diff_contracts(LoopContract.template("draft"), FLAKY, today=TODAY)
    assert diff.provisional and diff.changed and {finding.rule for finding in diff.findings_removed} >= {"LC004"}
    assert "(provisional: lint errors)" in render(diff, "text")


def test_the_diff_renders_who_signs_again_in_text_html_and_markdown():
    edited = FLAKY.replace(budget={"max_retries": 2, "max_runtime_minutes": 45})
    diff = diff_contracts(FLAKY, edited, today=TODAY)
    text = render(diff, "text")
    assert "  budget.max_retries\n    was: 3\n    now: 2" in text and "  operator: budget.max_retries" in text
    assert "<b>operator</b>" in render(diff, "html")
    assert "- operator: budget.max\\_retries" in render(diff, "markdown")
